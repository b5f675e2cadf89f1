"""Rerun the first steps of a committed run at one or more commits, and compare them with the committed row.

    OMP_NUM_THREADS=1 python tools/prefix_rerun.py --results results/decide/results.jsonl \
        --experiment "decide 10000" --config "mha lr=0.002" --seed 0 --commit ce4b7d8 --commit e9de0a6 \
        [--also results/ladder/results.jsonl:"ladder 10000"] [--steps 250] [--out results/ladder/prefix-rerun.json]

A protocol reuses a committed row only if a rerun reproduces it to the last bit. When one does not, this tool asks
why. For each commit it checks the commit out in a temporary `git worktree`, trains the row's settings and seed there
for --steps steps (`train(cfg, stop_after=steps)`, the loop's own early stop), and reads the training loss of the
evaluation at that step. If the same commit gives another number than the committed row, the code did not change:
the machine's arithmetic did. --also names another results file (and its experiment) holding a rerun of the same
configuration and seed, whose committed point is printed beside.
"""
from __future__ import annotations
import argparse, json, os, platform, shlex, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, tempfile, torch
from pathlib import Path
torch.set_num_threads(1)
from damcha.loop import TrainConfig
from damcha.train import train
settings, seed, steps, data = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
out = tempfile.mkdtemp()
cfg = TrainConfig(**{**settings, "progress": False, "data": data, "out": out, "seed": seed})
train(cfg, stop_after=steps)
recs = [json.loads(l) for l in open(Path(out) / "metrics.jsonl")]
ev = next(r for r in recs if r["kind"] == "eval" and r["step"] == steps)
print(json.dumps(dict(train_loss=ev["train_loss"], val_loss=ev["val_loss"], torch=torch.__version__)))
"""


def committed_row(path: Path, experiment: str, config: str, seed: int) -> dict:
    "The one row of `path` with this experiment, configuration and seed."
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    found = [r for r in rows if (r["experiment"], r["config"], r["seed"]) == (experiment, config, seed)]
    if len(found) != 1:
        raise SystemExit(f"{path}: {len(found)} rows with experiment {experiment!r}, config {config!r}, seed {seed}")
    return found[0]


def point(row: dict, steps: int) -> float:
    "The committed curve's training loss at `steps`."
    for c in row["curve"]:
        if c["step"] == steps:
            return c["train_loss"]
    raise SystemExit(f"the committed curve has no point at step {steps} (eval_every: {row['settings'].get('eval_every')})")


def rerun_at(commit: str, row: dict, seed: int, steps: int, data: Path, python: str) -> dict:
    "Train the row's first `steps` steps in a temporary worktree at `commit`: the eval record's numbers."
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                          capture_output=True, text=True, check=True).stdout.strip()
    wt = Path(tempfile.mkdtemp()) / "wt"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(wt), full], check=True)
    try:
        p = subprocess.run([python, "-c", CHILD, json.dumps(row["settings"]), str(seed), str(steps), str(data)],
                           cwd=wt, env={**os.environ, "PYTHONPATH": str(wt), "OMP_NUM_THREADS": "1"},
                           capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(f"the rerun at {commit} failed:\n{p.stderr[-2000:]}")
        return dict(commit=full, **json.loads(p.stdout.strip().splitlines()[-1]))
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)], check=False)


def cpu_model() -> str | None:
    "The processor's model name, from /proc/cpuinfo where there is one."
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    return next((l.split(":", 1)[1].strip() for l in lines if l.startswith("model name")), None)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", required=True, help="the results.jsonl holding the committed row")
    p.add_argument("--experiment", required=True)
    p.add_argument("--config", required=True, action="append", help="one or more configurations (repeat)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--commit", required=True, action="append", help="one or more commits to rerun at (repeat)")
    p.add_argument("--also", action="append", default=[], help="RESULTS:EXPERIMENT of a rerun to print beside")
    p.add_argument("--steps", type=int, default=250, help="a step the committed curve evaluated at")
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "tinyshakespeare"))
    p.add_argument("--out", default=None, help="write the comparison here as JSON")
    args = p.parse_args(argv)
    if args.steps < 1:
        p.error("--steps must be >= 1")
    t0, out = time.time(), []
    for config in args.config:
        row = committed_row(Path(args.results), args.experiment, config, args.seed)
        entry = dict(config=config, seed=args.seed, steps=args.steps, committed=point(row, args.steps),
                     also={}, reruns=[])
        for a in args.also:
            path, _, exp = a.partition(":")
            entry["also"][exp] = point(committed_row(Path(path), exp, config, args.seed), args.steps)
        for c in args.commit:
            entry["reruns"].append(rerun_at(c, row, args.seed, args.steps, Path(args.data), sys.executable))
        out.append(entry)
        print(f"{config}, seed {args.seed}, training loss at step {args.steps}: committed {entry['committed']!r}")
        for exp, v in entry["also"].items():
            print(f"  {exp} (committed): {v!r}")
        for r in entry["reruns"]:
            same = "the same" if r["train_loss"] == entry["committed"] else "differs"
            print(f"  rerun at {r['commit'][:7]} today: {r['train_loss']!r} ({same})")
    if args.out:
        typed = shlex.join(sys.argv[1:] if argv is None else argv)
        res = dict(command=f"OMP_NUM_THREADS=1 python tools/prefix_rerun.py {typed}", machine=platform.machine(),
                   cpu=cpu_model(), wall_s=time.time() - t0, rows=out)
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
