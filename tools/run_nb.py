"""Run notebooks and store their outputs, as a reader who runs them sees them.

    python tools/run_nb.py nbs/00_metric.ipynb [nbs/01_generator.ipynb ...]

Each notebook runs top to bottom in `nbs/`, in a fresh kernel, the way `nbdev_test` runs it: the cells that
settings.ini's `tst_flags` mark (slow, compile, gpu, notest) are skipped and keep the outputs they had. A cell that
raises stops the notebook and nothing is written. Run `nbdev_clean` afterwards.
"""
import configparser, json, os, sys, time
from pathlib import Path

from execnb.shell import CaptureShell
from fastcore.basics import AttrDict

ROOT = Path(__file__).resolve().parents[1]


def flagged(src: str, flags: set[str]) -> bool:
    "Whether a cell carries one of `flags` as an nbdev directive (`#| slow`)."
    return any(l.strip().startswith("#|") and l.strip()[2:].strip() in flags for l in src.splitlines())


def run(path: Path, flags: set[str]) -> float:
    raw = json.loads(path.read_text())
    shell, start = CaptureShell(path), time.time()
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        for i, cell in enumerate(raw["cells"]):
            src = "".join(cell["source"])
            if cell["cell_type"] != "code" or flagged(src, flags) or "nbdev_export(" in src:
                continue
            c = AttrDict(cell_type="code", source=src, outputs=[], idx_=i)
            shell.cell(c)
            if any(o.get("output_type") == "error" for o in c.outputs):
                tb = "\n".join(l for o in c.outputs if o.get("output_type") == "error" for l in o.get("traceback", []))
                raise RuntimeError(f"{path.name}: cell {i} raised\n{tb}")
            cell["outputs"] = [dict(o) for o in c.outputs]
            cell["execution_count"] = None
    finally:
        os.chdir(cwd)
    path.write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n")
    return time.time() - start


if __name__ == "__main__":
    cfg = configparser.ConfigParser(delimiters=["="])
    cfg.read(ROOT / "settings.ini")
    flags = set(cfg["DEFAULT"]["tst_flags"].split())
    for p in sys.argv[1:]:
        print(f"{p}: {run(Path(p).resolve(), flags):.0f} s")
