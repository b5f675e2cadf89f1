"""One worker of the protocols' shared queue (tools/protocol_workers.sh starts two, from the pinned worktree).

Each entry is PRESET=DATA=OUT: a registered preset, its data folder (empty: the preset's default) and its results
folder. The worker trains one run at a time. With `--order turns` (the default) it takes the protocols in turn, so
that every protocol advances; with `--order first` it always takes the first entry that has a run open, so that the
protocols finish one after another, in the entries' order. A run held by the other worker is skipped; when every run
that can be planned now is held, it waits and looks again (a staged protocol plans its rows once its rate runs have
finished). It stops when no protocol has a run left. The order decides when a run is trained, never what it computes.

    python tools/queue_worker.py ladder=DIR=results/ladder fashion-vit==results/fashion-vit ...
"""
import argparse, sys, time
from pathlib import Path
import damcha.ladder, damcha.fashion  # noqa: F401  (they register the presets 'ladder', 'fashion-vit', 'fashion-masked')
from damcha.experiments import preset_runs, run_specs, read_results


def finished(out: Path) -> set[str]:
    path = out / "results.jsonl"
    return {r["run_id"] for r in read_results(path)} if path.exists() else set()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="one worker of the protocols' shared queue")
    ap.add_argument("entries", nargs="+", help="PRESET=DATA=OUT, in the order the turns start from")
    ap.add_argument("--wait", type=float, default=30.0, help="seconds between looks when every open run is held")
    ap.add_argument("--order", choices=("turns", "first"), default="turns",
                    help="turns: the protocols in turn; first: the first entry with an open run, always")
    args = ap.parse_args(argv)
    queue = []
    for e in args.entries:
        parts = e.split("=")
        if len(parts) != 3 or not parts[0] or not parts[2]:
            ap.error(f"an entry is PRESET=DATA=OUT (DATA may be empty), got {e!r}")
        queue.append((parts[0], parts[1] or None, Path(parts[2])))
    log = lambda *a, **k: print(*a, **{**k, "flush": True})
    turn = 0
    while True:
        pending = trained = False
        for j in range(len(queue)):
            preset, data, out = queue[(turn + j) % len(queue)]
            specs = preset_runs(preset, data, None, out=out)
            before = finished(out)
            if all(s.run_id in before for s in specs):
                continue
            pending = True
            run_specs(specs, out, max_new=1, log=log)
            if len(finished(out)) > len(before):
                trained = True
                turn = 0 if args.order == "first" else (turn + j + 1) % len(queue)   # the next protocol's turn
                break
        if not pending:
            log("every planned run of every protocol has finished")
            return 0
        if not trained:
            time.sleep(args.wait)


if __name__ == "__main__":
    sys.exit(main())
