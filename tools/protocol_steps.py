"""Time one training step of every model the three protocols train, each at its protocol's shape, back to back.

    OMP_NUM_THREADS=1 python tools/protocol_steps.py [--rounds 7] [--steps 10] [--out results/bench/protocols.json]

Each model is built from one of its planned runs as `damcha train` builds it: `TrainConfig` from the run's settings,
the task, `build_model` and `make_optimizer`. Its step is the loop's own `train_step` (a batch, the forward pass, the
backward pass, the clip and AdamW). The models of a protocol are timed in turn, a block of --steps steps each, for
--rounds rounds after one warm-up block. Each model's median step is divided by its protocol's MHA step, measured in
the same rounds. One thread, so the machine's other core may run something else; run it on a quiet machine.

The ladder's data is Tiny Shakespeare (--shakespeare); the two image protocols read Debian's Fashion-MNIST
(`apt-get install dataset-fashion-mnist`) or --fashion.
"""
from __future__ import annotations
import argparse, json, platform, statistics, sys, tempfile, time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
PROTOCOLS = (("ladder", "ladder 10000"), ("fashion-vit", "vit full"), ("fashion-masked", "masked"))


def models_of(preset: str, experiment: str, data) -> dict[str, object]:
    "Configuration (rate dropped) -> one planned RunSpec of `experiment`, else of the protocol's rate sweep."
    from damcha.experiments import preset_runs
    specs = preset_runs(preset, data, None, out=ROOT / "results" / preset)
    out = {}
    for s in sorted(specs, key=lambda s: (s.experiment != experiment, s.seed)):   # the main experiment first
        out.setdefault(s.config.rpartition(" lr=")[0] or s.config, s)
    return out


def built(spec, tmp: Path):
    "(cfg, task, model, optimizer) as `damcha train` makes them for `spec`, seed 0."
    from damcha.loop import TrainConfig, build_model, make_optimizer
    from damcha.train import _open_task
    cfg = TrainConfig(**{**spec.settings, "progress": False}, seed=0, out=str(tmp / spec.run_id))
    task = _open_task(cfg, True, 1)
    torch.manual_seed(0)
    model = build_model(cfg, task)
    return cfg, task, model, make_optimizer(model, cfg)


def time_protocol(preset: str, experiment: str, data, rounds: int, steps: int, log) -> list[dict]:
    "Median seconds per step of each model of `preset`, timed in turn, and its ratio to the protocol's MHA."
    from damcha.loop import train_step
    tmp = Path(tempfile.mkdtemp())
    models = {name: built(spec, tmp) for name, spec in models_of(preset, experiment, data).items()}
    times = {name: [] for name in models}
    done = {name: 0 for name in models}
    for r in range(rounds + 1):                                             # round 0 warms up
        for name, (cfg, task, model, opt) in models.items():
            t0 = time.perf_counter()
            for _ in range(steps):
                train_step(model, opt, task, cfg, done[name])
                done[name] += 1
            if r:
                times[name].append((time.perf_counter() - t0) / steps)
        log(f"{preset}: round {r} of {rounds}")
    flops = {name: step_flops(*m, done[name]) for name, m in models.items()}
    mha = statistics.median(times["mha"])
    return [dict(protocol=preset, model=name, ms=1e3 * statistics.median(t), ms_all=[1e3 * x for x in t],
                 x_mha=statistics.median(t) / mha, gflop=flops[name] / 1e9, flop_x_mha=flops[name] / flops["mha"],
                 params=sum(p.numel() for p in models[name][2].parameters()), batch=models[name][0].batch_size)
            for name, t in times.items()]


def step_flops(cfg, task, model, opt, step: int) -> float:
    "The FLOPs of one `train_step` (forward, backward, clip, AdamW), as torch's FlopCounterMode counts them."
    from torch.utils.flop_counter import FlopCounterMode
    from damcha.loop import train_step
    with FlopCounterMode(display=False) as fc:
        train_step(model, opt, task, cfg, step)
    return fc.get_total_flops()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--shakespeare", default=str(ROOT.parent / "shared" / "data" / "tinyshakespeare"))
    p.add_argument("--fashion", default=None, help="the Fashion-MNIST folder (default: Debian's)")
    p.add_argument("--out", default=str(ROOT / "results" / "bench" / "protocols.json"))
    args = p.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        p.error("--rounds and --steps must be >= 1")
    torch.set_num_threads(1)
    import damcha.ladder, damcha.fashion  # noqa: F401  (they register the presets)
    log = lambda s: print(s, file=sys.stderr, flush=True)
    t0 = time.time()
    rows = []
    for preset, experiment in PROTOCOLS:
        data = args.shakespeare if preset == "ladder" else args.fashion
        rows += time_protocol(preset, experiment, data, args.rounds, args.steps, log)
    typed = " ".join(sys.argv[1:] if argv is None else argv)
    res = dict(command=f"OMP_NUM_THREADS=1 python tools/protocol_steps.py {typed}".rstrip(),
               torch=torch.__version__, machine=platform.machine(), threads=1, rounds=args.rounds, steps=args.steps,
               wall_s=time.time() - t0, rows=rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    for r in rows:
        print(f"{r['protocol']:15s} {r['model']:20s} {r['ms']:7.1f} ms  {r['x_mha']:.2f}x MHA  "
              f"{r['gflop']:6.2f} GFLOP  {r['flop_x_mha']:.2f}x MHA's")
    print(f"wrote {args.out} ({res['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
