"""Run nanoGPT's own `train.py` on Tiny Shakespeare, several random seeds and two initialisations, and score each
final checkpoint the book's way. The anchor of chapter 11d.

    python tools/nanogpt_anchor.py --nanogpt PATH/TO/nanoGPT [--seeds 0,1,2] [--out results/nanogpt]

PATH is a nanoGPT checkout that you supply; nothing of it is copied into this project. Its files are copied into a
temporary folder for the runs, with Tiny Shakespeare's `input.txt` beside `data/shakespeare_char/prepare.py`, which
then reads it instead of downloading it. `train.py` and `model.py` run unchanged:

- the random seed: nanoGPT seeds with `torch.manual_seed(1337 + seed_offset)`; seed k adds k to that number (seed 0
  is nanoGPT's own run). The same generator draws the initial weights and the batches.
- `--init pytorch`: after nanoGPT builds its model, every linear layer but the tied output layer takes PyTorch's
  default initialisation (`reset_parameters`), and the scaled residual initialisation is undone; the embeddings
  keep nanoGPT's N(0, 0.02). This is how the book's `Decoder` (chapter 07) is initialised.

The command is nanoGPT README's CPU recipe at the book's size, with the checkpoint of the last iteration kept
(`--always_save_checkpoint=True`; nanoGPT's own config keeps the best one on the validation part, which is the part
scored here). Each final model is scored over nanoGPT's whole validation part (the last 10 % of the text) in
non-overlapping windows of 64 characters, and over its two halves, as `make_task('shakespeare-char')` splits it.
Writes OUT/anchor.jsonl (one row per run, appended as runs finish; finished runs are skipped on a rerun) and
OUT/logs/VARIANT-sSEED.log (nanoGPT's own output).
"""
from __future__ import annotations
import argparse, json, math, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

FLAGS = ["--device=cpu", "--compile=False", "--eval_iters=20", "--log_interval=1", "--block_size=64",
         "--batch_size=12", "--n_layer=4", "--n_head=4", "--n_embd=128", "--max_iters=2000", "--lr_decay_iters=2000",
         "--dropout=0.0", "--always_save_checkpoint=True"]
VARIANTS = ("nanogpt", "pytorch")
WINDOW = 64

# Run inside the temporary copy: patch the seed (and the initialisation), then run train.py as nanoGPT's __main__.
LAUNCH = r"""
import math, runpy, sys, torch
seed, init = int(sys.argv[1]), sys.argv[2]
_seed = torch.manual_seed
torch.manual_seed = lambda s: _seed(s + seed)
if init == "pytorch":
    import model
    _init = model.GPT.__init__
    def __init__(self, config):
        _init(self, config)
        for name, m in self.named_modules():
            if isinstance(m, torch.nn.Linear) and name != "lm_head":
                m.reset_parameters()
    model.GPT.__init__ = __init__
sys.argv = ["train.py", *sys.argv[3:]]
runpy.run_path("train.py", run_name="__main__")
"""

SCORE = r"""
import json, sys, numpy as np, torch
from model import GPT, GPTConfig
ck = torch.load(sys.argv[1], map_location="cpu", weights_only=False)
m = GPT(GPTConfig(**ck["model_args"]))
m.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in ck["state_dict" if "state_dict" in ck else "model"].items()})
m.eval()
ids = torch.from_numpy(np.fromfile("data/shakespeare_char/val.bin", dtype=np.uint16).astype(np.int64))
w = int(sys.argv[2])
half = len(ids) // 2
def score(part):
    n = (len(part) - 1) // w
    x = part[: n * w].view(n, w); y = part[1 : n * w + 1].view(n, w)
    total = 0.0
    with torch.no_grad():
        for i in range(0, n, 64):
            logits, _ = m(x[i:i + 64], y[i:i + 64])                   # with targets: logits at every position
            total += torch.nn.functional.cross_entropy(logits.flatten(0, 1), y[i:i + 64].flatten(), reduction="sum").item()
    return total / (n * w), n * w
whole, nw = score(ids)
a, na = score(ids[:half]); b, nb = score(ids[half:])
print(json.dumps(dict(iter=ck["iter_num"], whole_last10=whole, val_half=a, test_half=b, scored=dict(whole=nw, val=na, test=nb))))
"""


def _prepare(checkout: Path, text: Path, work: Path) -> str:
    "Copy the checkout's files into `work`, put input.txt beside prepare.py, run it; return the checkout's commit."
    for name in ("train.py", "model.py", "configurator.py", "config", "data/shakespeare_char"):
        src = checkout / name
        if not src.exists():
            raise SystemExit(f"--nanogpt {checkout}: no {name} (give the folder of a nanoGPT checkout)")
        dst = work / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst) if src.is_dir() else shutil.copy2(src, dst)
    shutil.copy2(text, work / "data/shakespeare_char/input.txt")
    subprocess.run([sys.executable, "prepare.py"], cwd=work / "data/shakespeare_char", check=True,
                   stdout=subprocess.DEVNULL)
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown (not a git checkout)"


def _printed(log: str) -> dict:
    "nanoGPT's own estimates at its last evaluation (eval_iters random batches)."
    hits = re.findall(r"step (\d+): train loss ([\d.]+), val loss ([\d.]+)", log)
    if not hits:
        return {}
    step, tr, va = hits[-1]
    return dict(step=int(step), train_loss=float(tr), val_loss=float(va))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nanogpt", required=True, type=Path, help="a nanoGPT checkout (the folder of train.py)")
    p.add_argument("--text", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/tinyshakespeare/input.txt",
                   help="Tiny Shakespeare's input.txt")
    p.add_argument("--seeds", default="0,1,2", help="random seeds, added to nanoGPT's 1337")
    p.add_argument("--variants", default=",".join(VARIANTS), help="nanogpt (its own init), pytorch (PyTorch's)")
    p.add_argument("--out", type=Path, default=Path("results/nanogpt"))
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    if not a.text.is_file():
        raise SystemExit(f"--text {a.text}: no such file")
    seeds = [int(s) for s in a.seeds.split(",")]
    variants = a.variants.split(",")
    if bad := [v for v in variants if v not in VARIANTS]:
        raise SystemExit(f"--variants: unknown {bad}; known: {', '.join(VARIANTS)}")
    (a.out / "logs").mkdir(parents=True, exist_ok=True)
    rows_path = a.out / "anchor.jsonl"
    done = set()
    if rows_path.exists():
        for line in rows_path.read_text().splitlines():
            try:
                r = json.loads(line)
                done.add((r["variant"], r["seed"]))
            except (json.JSONDecodeError, KeyError):
                print(f"{rows_path}: a damaged line is ignored (its run is redone): {line[:60]!r}")
    env = {**os.environ, "OMP_NUM_THREADS": str(a.threads), "MKL_NUM_THREADS": str(a.threads)}
    with tempfile.TemporaryDirectory(prefix="nanogpt-anchor-") as tmp:
        work = Path(tmp)
        commit = _prepare(a.nanogpt.resolve(), a.text, work)
        (work / "launch.py").write_text(LAUNCH)
        (work / "score.py").write_text(SCORE)
        for variant in variants:
            for seed in seeds:
                if (variant, seed) in done:
                    print(f"{variant} seed {seed}: done")
                    continue
                out_dir = work / f"out-{variant}-s{seed}"
                cmd = ["launch.py", str(seed), variant, "config/train_shakespeare_char.py", *FLAGS, f"--out_dir={out_dir.name}"]
                print(f"{variant} seed {seed}: python {' '.join(cmd)}", flush=True)
                t0 = time.time()
                run = subprocess.run([sys.executable, *cmd], cwd=work, env=env, capture_output=True, text=True)
                seconds = time.time() - t0
                log = run.stdout + run.stderr
                (a.out / "logs" / f"{variant}-s{seed}.log").write_text(log)
                if run.returncode != 0:
                    print(log[-2000:])
                    raise SystemExit(f"{variant} seed {seed}: nanoGPT's train.py exited {run.returncode}")
                sc = subprocess.run([sys.executable, "score.py", str(out_dir / "ckpt.pt"), str(WINDOW)], cwd=work, env=env,
                                    capture_output=True, text=True, check=True)
                scores = json.loads(sc.stdout.strip().splitlines()[-1])
                row = dict(variant=variant, seed=seed, torch_seed=1337 + seed, nanogpt_commit=commit,
                           command="python train.py config/train_shakespeare_char.py " + " ".join(FLAGS),
                           printed=_printed(log), **scores, seconds=round(seconds, 1), threads=a.threads,
                           log=f"logs/{variant}-s{seed}.log")
                with open(rows_path, "a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"    last 10 %: {scores['whole_last10']:.4f} nats ({seconds:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
