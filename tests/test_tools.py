"""The maintainers' tools that the book does not teach: checked on made-up rows."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import protocol_status as ps  # noqa: E402
from damcha.fashion import ARM_CONFIGS, IMAGE_RATES, MASKED_CONFIGS, MASKED_SEEDS, TUNE_SEEDS, VIT_SEEDS  # noqa: E402
from damcha.protocols import GRID_EXTEND  # noqa: E402


def test_whole_plan_before_any_run():
    "With nothing finished, the whole plan is every rate run of the starting grids and every row at the middle rate."
    specs = ps.whole_plan("fashion-vit", None, [])
    long = [s for s in specs if " rates" not in s.experiment]
    assert len(long) == sum(len(ARM_CONFIGS[a]) * VIT_SEEDS[a] for a in VIT_SEEDS)
    assert len(specs) - len(long) == sum(map(len, ARM_CONFIGS.values())) * len(IMAGE_RATES) * len(TUNE_SEEDS)
    assert {s.settings["lr"] for s in long} == {sorted(IMAGE_RATES)[1]}


def test_whole_plan_grows_where_a_finished_edge_wins():
    "A finished top-edge rate that wins grows its grid by one rate; that one, made up to lose, stops the growth."
    first = [s for s in ps.whole_plan("fashion-masked", None, []) if " rates" in s.experiment]
    top = max(IMAGE_RATES)
    rows = [dict(ps._made_up(s, top), best=dict(val_loss=0.05)) for s in first
            if s.config.startswith("mha ") and s.settings["lr"] == top]                 # made up: MHA's top rate wins
    specs = ps.whole_plan("fashion-masked", None, rows)
    mha = {s.settings["lr"] for s in specs if s.experiment == "masked rates" and s.config.startswith("mha ")}
    assert len(mha) == len(IMAGE_RATES) + 1 and max(mha) == 2 * top and GRID_EXTEND >= 1
    long = [s for s in specs if s.experiment == "masked"]
    assert len(long) == len(MASKED_CONFIGS) * MASKED_SEEDS
    assert {s.settings["lr"] for s in long if s.config.startswith("mha ")} == {top}


def test_left_times_runs_by_their_row_then_their_model():
    "A pending run of a timed row takes that row's mean time; one of an untimed row, its model's time a step."
    first = [s for s in ps.whole_plan("fashion-vit", None, []) if s.experiment == "vit rates full"]
    a, b = [s for s in first if s.config.startswith("mha ") and s.seed == 0][:2]
    rows = [dict(ps._made_up(a, 1e-3), best=dict(val_loss=0.4), seconds=3600.0)]         # made up: one hour
    c = ps.left("fashion-vit", None, rows)
    assert c["now"]["same"][0] == len(TUNE_SEEDS) - 1 and c["whole"]["todo"] == c["whole"]["runs"] - 1  # its seed 1
    hours = c["whole"]["same"][1] + c["whole"]["other"][1] + c["whole"]["untimed"][1]
    per_step = 1.0 / a.settings["steps"]                                                   # hours a step, MHA's
    assert abs(hours - per_step * sum(s.settings["steps"] for s in ps.whole_plan("fashion-vit", None, rows)
                                      if s.run_id != a.run_id)) < 1e-6
    assert b.run_id != a.run_id


def _fake_queue(monkeypatch, sizes: dict) -> list:
    "queue_worker with made-up protocols of `sizes` runs each, trained instantly; returns the order it trains them."
    import queue_worker as qw
    from types import SimpleNamespace
    done, order = {p: set() for p in sizes}, []
    monkeypatch.setattr(qw, "preset_runs", lambda p, d, s, out: [SimpleNamespace(run_id=f"{p}{i}")
                                                                  for i in range(sizes[p])])
    monkeypatch.setattr(qw, "finished", lambda out: set(done[out.name]))

    def run_specs(specs, out, max_new, log):
        s = next(s for s in specs if s.run_id not in done[out.name])
        done[out.name].add(s.run_id)
        order.append(out.name)
    monkeypatch.setattr(qw, "run_specs", run_specs)
    return qw, order


def test_queue_order(monkeypatch):
    "In turn, the protocols alternate; first, each finishes before the next begins."
    entries = ["a==a", "b==b"]
    qw, order = _fake_queue(monkeypatch, {"a": 3, "b": 2})
    assert qw.main(entries) == 0 and order == ["a", "b", "a", "b", "a"]
    qw, order = _fake_queue(monkeypatch, {"a": 3, "b": 2})
    assert qw.main(["--order", "first", *entries]) == 0 and order == ["a", "a", "a", "b", "b"]
