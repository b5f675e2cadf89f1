"""Where the book's MHA decoder and nanoGPT's model differ in speed: one training step at nanoGPT's CPU recipe, in parts.

    OMP_NUM_THREADS=1 python tools/nanogpt_step.py --nanogpt PATH/TO/nanoGPT [--rounds 9] [--steps 20]
                                                   [--out results/bench/nanogpt-step.json]

PATH is a nanoGPT checkout that you supply (its `model.py` is imported from there; nothing of it is copied here).
Both models have nanoGPT's CPU recipe size (chapter 11b's RECIPE): 4 layers of width 128 with 4 heads, 64
characters, batches of 12, Tiny Shakespeare's 65 characters. nanoGPT's model is built with its own defaults for
that recipe (no biases, dropout 0) and its own `configure_optimizers` (AdamW, not fused on a CPU). The book's is
built as `damcha train` builds the recipe's `mha` run.

Each step is cut into the same parts for both, on the same batch: the forward pass with the loss, the backward
pass, the clip (torch's `clip_grad_norm_` for nanoGPT, the book's for the book, both at 1.0) and the optimizer step
with `zero_grad`. The book's loop also fetches its batch and sets the rate each step; `train_step`, the whole of it,
is timed too, and its batch alone. The two models are timed in turn, a block of --steps steps each, --rounds rounds after a warm-up.
"""
from __future__ import annotations
import argparse, json, platform, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("forward", "backward", "clip", "optimizer")


def nanogpt_model(path: Path, recipe: dict, vocab: int):
    "nanoGPT's GPT at the recipe's size, its optimizer, and its step's parts."
    sys.path.insert(0, str(path))
    from model import GPT, GPTConfig                                            # nanoGPT's own module
    torch.manual_seed(0)
    m = GPT(GPTConfig(block_size=recipe["seq_len"], vocab_size=vocab, n_layer=recipe["n_layers"],
                      n_head=recipe["n_heads"], n_embd=recipe["d_model"], dropout=0.0, bias=False))
    opt = m.configure_optimizers(recipe["weight_decay"], recipe["lr"], (0.9, recipe["beta2"]), "cpu")
    parts = dict(forward=lambda x, y: m(x, y)[1], clip=lambda: torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0))
    return m, opt, parts


def book_model(recipe: dict, data: str):
    "The book's `mha` recipe run as `damcha train` builds it (protocol_steps.built): cfg, task, model, optimizer, parts."
    from damcha.experiments import RunSpec
    from damcha.loop import _clip
    sys.path.insert(0, str(ROOT / "tools"))
    from protocol_steps import built
    spec = RunSpec("nanogpt recipe", "mha", 0, {**recipe, "attention": "mha", "data": data})
    cfg, task, m, opt = built(spec, Path(tempfile.mkdtemp()))
    forward = lambda x, y: F.cross_entropy(m(x).flatten(0, 1), y.flatten())
    return cfg, task, m, opt, dict(forward=forward, clip=lambda: _clip(m, cfg))


def timed_parts(model, opt, parts: dict, x, y) -> dict[str, float]:
    "Seconds of each part of one step on batch (x, y)."
    t = [time.perf_counter()]
    loss = parts["forward"](x, y)
    t.append(time.perf_counter())
    loss.backward()
    t.append(time.perf_counter())
    parts["clip"]()
    t.append(time.perf_counter())
    opt.step()
    opt.zero_grad(set_to_none=True)
    t.append(time.perf_counter())
    return dict(zip(PARTS, (b - a for a, b in zip(t, t[1:]))))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nanogpt", required=True, help="a nanoGPT checkout (its model.py is imported)")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--shakespeare", default=str(ROOT.parent / "shared" / "data" / "tinyshakespeare"))
    p.add_argument("--out", default=str(ROOT / "results" / "bench" / "nanogpt-step.json"))
    args = p.parse_args(argv)
    if not (Path(args.nanogpt) / "model.py").is_file():
        p.error(f"--nanogpt {args.nanogpt}: no model.py there; give a nanoGPT checkout")
    torch.set_num_threads(1)
    from damcha.protocols import RECIPE
    from damcha.loop import train_step, train_batch
    cfg, task, bm, bopt, bparts = book_model(RECIPE, args.shakespeare)
    vocab = bm.tok_emb.num_embeddings if hasattr(bm, "tok_emb") else 65
    nm, nopt, nparts = nanogpt_model(Path(args.nanogpt), RECIPE, vocab)
    times = {k: {part: [] for part in (*PARTS, "step", "batch")} for k in ("book", "nanogpt")}
    step = 0
    for r in range(args.rounds + 1):                                           # round 0 warms up
        t0 = time.perf_counter()
        batches = [train_batch(task.train, cfg, step + i, 0) for i in range(args.steps)]
        if r:
            times["book"]["batch"].append((time.perf_counter() - t0) / args.steps)
        for name, (m, opt, parts) in (("book", (bm, bopt, bparts)), ("nanogpt", (nm, nopt, nparts))):
            sums = dict.fromkeys(PARTS, 0.0)
            for x, y in batches:
                for part, s in timed_parts(m, opt, parts, x, y).items():
                    sums[part] += s
            if r:
                for part in PARTS:
                    times[name][part].append(sums[part] / args.steps)
        t0 = time.perf_counter()
        for i in range(args.steps):                                            # the loop's own step, whole
            train_step(bm, bopt, task, cfg, step + i)
        if r:
            times["book"]["step"].append((time.perf_counter() - t0) / args.steps)
        step += args.steps
        print(f"round {r} of {args.rounds}", file=sys.stderr, flush=True)
    med = {k: {part: 1e3 * statistics.median(v) for part, v in d.items() if v} for k, d in times.items()}
    for k in med:
        med[k]["parts"] = sum(med[k][part] for part in PARTS)
    params = {k: sum(p.numel() for p in m.parameters()) for k, m in (("book", bm), ("nanogpt", nm))}
    tensors = {k: len(list(m.parameters())) for k, m in (("book", bm), ("nanogpt", nm))}
    res = dict(command="OMP_NUM_THREADS=1 python tools/nanogpt_step.py " + " ".join(sys.argv[1:] if argv is None
                                                                                      else argv),
               nanogpt_commit=subprocess.run(["git", "-C", args.nanogpt, "rev-parse", "HEAD"], capture_output=True,
                                             text=True).stdout.strip() or None,
               torch=torch.__version__, machine=platform.machine(), threads=1, rounds=args.rounds, steps=args.steps,
               params=params, tensors=tensors, ms=med, ms_all={k: {part: [1e3 * s for s in v] for part, v in d.items()}
                                              for k, d in times.items()})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    for part in (*PARTS, "parts"):
        print(f"{part:10s} book {med['book'][part]:6.2f} ms  nanoGPT {med['nanogpt'][part]:6.2f} ms  "
              f"ratio {med['book'][part] / med['nanogpt'][part]:.2f}")
    print(f"book train_step, whole: {med['book']['step']:.2f} ms, of which its batch {med['book']['batch']:.2f} ms; "
          f"parameters {params}, tensors {tensors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
