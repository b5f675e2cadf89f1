"""What is left of a staged protocol: its runs, and about how many core-hours they take on this machine.

tools/protocol_workers.sh status runs it from the pinned worktree, once per protocol:

    python tools/protocol_status.py PRESET DATA OUT      # DATA may be '' (the preset's default)

A staged protocol plans its long runs only once their rate runs have finished, so its plan grows as it goes.
`whole_plan` also plans what is not planned yet: it pretends that every pending rate run lost to the finished ones
(or, where none has finished, that the middle rate of the grid won). A grid whose finished edge wins then grows by one
rate, which loses. So it counts the runs left if the pending sweeps choose nothing new: a lower bound on the runs,
and an estimate of their time.
"""
import math, statistics, sys
from pathlib import Path
import damcha.ladder, damcha.fashion  # noqa: F401  (they register the presets 'ladder', 'fashion-vit', 'fashion-masked')
from damcha.experiments import PRESETS, read_results

LOST = 1e9  # a made-up selection score, worse than any real one


def _made_up(spec, middle: float) -> dict:
    "A finished row for a pending rate run (made up, never written): it loses, the grid's middle least."
    score = LOST + abs(math.log(spec.settings["lr"] / middle))
    return dict(run_id=spec.run_id, experiment=spec.experiment, config=spec.config, seed=spec.seed, failure=None,
                settings=spec.settings, seconds=0.0, best=dict(val_loss=score))


def whole_plan(preset: str, data, rows: list[dict], rounds: int = 20) -> list:
    "The preset's runs once every rate run has finished, with the pending ones made up to lose (see the docstring)."
    done = {r["run_id"]: r for r in rows}
    for _ in range(rounds):
        specs = PRESETS[preset].runs(data, done, None)
        pending = [s for s in specs if s.run_id not in done and " rates" in s.experiment]
        if not pending:
            return specs
        lrs = {}
        for s in specs:
            if " rates" in s.experiment:
                lrs.setdefault((s.experiment, s.config.rpartition(" lr=")[0]), set()).add(s.settings["lr"])
        for s in pending:
            grid = sorted(lrs[s.experiment, s.config.rpartition(" lr=")[0]])
            done[s.run_id] = _made_up(s, grid[len(grid) // 2])
    raise RuntimeError(f"{preset}: the plan still grew after {rounds} rounds")


def left(preset: str, data, rows: list[dict]) -> dict:
    "Runs and core-hours left, now and in the whole plan: timed by the row's finished runs, else by its model's step."
    real = {r["run_id"] for r in rows}
    secs, per_step = {}, {}
    for r in rows:
        secs.setdefault((r["experiment"], r["config"]), []).append(r["seconds"])
        per_step.setdefault(r["config"].rpartition(" lr=")[0], []).append(r["seconds"] / r["settings"]["steps"])

    def cost(specs):
        todo = [s for s in specs if s.run_id not in real]
        same = [statistics.fmean(secs[s.experiment, s.config]) for s in todo if (s.experiment, s.config) in secs]
        other = [statistics.fmean(per_step[m]) * s.settings["steps"] for s in todo
                 if (s.experiment, s.config) not in secs and (m := s.config.rpartition(" lr=")[0]) in per_step]
        untimed = [s.settings["steps"] for s in todo if (s.experiment, s.config) not in secs
                   and s.config.rpartition(" lr=")[0] not in per_step]
        guess = statistics.median(statistics.fmean(v) for v in per_step.values()) * sum(untimed) if untimed else 0.0
        return dict(runs=len(specs), todo=len(todo), same=(len(same), sum(same) / 3600),
                    other=(len(other), sum(other) / 3600), untimed=(len(untimed), guess / 3600))

    return dict(now=cost(PRESETS[preset].runs(data, {r["run_id"]: r for r in rows}, None)),
                whole=cost(whole_plan(preset, data, rows)))


def main(argv=None) -> int:
    preset, data, out = (argv or sys.argv[1:])[:3]
    path = Path(out) / "results.jsonl"
    c = left(preset, data or None, read_results(path) if path.exists() else [])
    now, whole = c["now"], c["whole"]
    print(f"  left of the runs planned now: about {now['same'][1]:.1f} core-hours for {now['same'][0]} runs at "
          f"their row's mean time; roughly {now['other'][1]:.1f} for {now['other'][0]} from their model's time a "
          f"step at another budget; {now['untimed'][0]} not timed yet")
    print(f"  the whole plan, if every pending rate run loses to the finished ones: {whole['runs']} runs, "
          f"{whole['todo']} to run; about {whole['same'][1] + whole['other'][1]:.1f} core-hours for "
          f"{whole['todo'] - whole['untimed'][0]} of them, and roughly {whole['untimed'][1]:.1f} for the "
          f"{whole['untimed'][0]} not timed yet (at the median model's time a step)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
