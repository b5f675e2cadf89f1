"The README's first-command check: counts exact, trained numbers within tolerances measured across CPU kernel paths."
import re
from pathlib import Path
from test_package import _readme_module # tools/readme.py as a module (tests/ is on sys.path under pytest)

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted((ROOT / "tests" / "quick_kernels").glob("*.txt"))


def _printed(readme) -> str:
    return readme.printed_section(readme.README.read_text(encoding="utf-8")).replace("#### ", "### ")


def _set(printed: str, config: str, col: str, value: str) -> str:
    "`printed` with the cell (first table's row `config`, column `col`) replaced by `value`."
    lines = printed.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("| config |"))
    cols = [c.strip() for c in lines[head].strip("|").split("|")]
    i = next(i for i, l in enumerate(lines) if l.startswith(f"| {config} |"))
    cells = [c.strip() for c in lines[i].strip("|").split("|")]
    cells[cols.index(col)] = value
    lines[i] = "| " + " | ".join(cells) + " |"
    return "\n".join(lines)


def test_tolerance_covers_every_measured_kernel_path():
    "Each tolerance is at least the largest spread between the committed outputs (kernel paths of one machine)."
    readme = _readme_module()
    assert len(KERNELS) >= 3, KERNELS
    outputs = [p.read_text(encoding="utf-8") for p in KERNELS]
    for col, (d, rel, where) in readme.spread(outputs).items():
        if col not in readme.TOLERANCE:
            assert d == 0, f"{col} differs between kernel paths ({where}) but is compared exactly"
            continue
        kind, tol = readme.TOLERANCE[col]
        assert (rel if kind == "rel" else d) <= tol / 2 + 1e-9, (col, d, rel, tol)      # a margin of two
    for text in outputs:                                                             # each one passes the check
        assert readme.check_quick(text) == [], text.splitlines()[0]


def test_counts_exact_trained_numbers_within_tolerance():
    readme = _readme_module()
    printed = _printed(readme)
    assert readme.check_quick(printed) == []
    tol = readme.TOLERANCE["val"][1]
    near = _set(printed, "mha", "val", f"{0.2324 + tol * 0.9:.4f}")
    assert readme.check_quick(near) == []                                            # within the tolerance
    far = _set(printed, "mha", "val", f"{0.2324 + tol * 1.1:.4f}")
    assert len(readme.check_quick(far)) == 1
    count = _set(printed, "mha", "total params", "272,513")                           # one parameter more
    diff = readme.check_quick(count)
    assert len(diff) == 1 and "total params" in diff[0], diff
    rel = readme.TOLERANCE["grad-norm var"][1]
    assert readme.agree("grad-norm var", f"{0.0984 * (1 + rel * 0.9):.4g}", "0.0984")
    assert not readme.agree("grad-norm var", f"{0.0984 * (1 + rel * 1.1):.4g}", "0.0984")
    assert not readme.agree("non-finite", "0 / 1", "0 / 0")
    assert not readme.agree("val", "–", "0.2324")


def test_contributing_states_the_tolerances():
    "CONTRIBUTING.md says, in words, the tolerances the check applies; the README, that counts agree exactly."
    readme = _readme_module()
    text = " ".join((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split())
    t = readme.TOLERANCE
    for phrase in (f"val and test accuracies are within ±{t['val'][1]:g} and ±{t['test'][1]:g}",
                   f"val loss within ±{t['val loss'][1]:g}", f"grad-norm CV within ±{t['grad-norm CV'][1]:g}",
                   f"by at most {t['grad-norm var'][1] * 100:.0f} % and {t['max logit'][1] * 100:.0f} %"):
        assert phrase in text, phrase
    assert all(kind in ("abs", "rel") for kind, _ in t.values())
    front = " ".join(readme.README.read_text(encoding="utf-8").split())
    assert re.search(r"counts agree exactly", front) and "(CONTRIBUTING.md)" in front
