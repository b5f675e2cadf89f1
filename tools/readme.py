"""Render README.md from nbs/index.ipynb (quarto, which nbdev_readme needs, cannot be installed here).

    python tools/readme.py          # write README.md
    python tools/readme.py --check  # exit 1 if README.md differs from what the notebook gives

Markdown cells are copied; code cells become ```python blocks followed by their text output; cells carrying a
`#| hide` directive are left out and other `#|` directive lines are dropped. Images are not carried over."""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _src(cell) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def render(nb_path: Path = ROOT / "nbs" / "index.ipynb") -> str:
    nb = json.loads(Path(nb_path).read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        src = _src(cell)
        lines = src.splitlines()
        directives = [l.strip() for l in lines if l.strip().startswith("#|")]
        if any(d.replace(" ", "") in ("#|hide", "#|include:false") for d in directives): continue
        if cell["cell_type"] == "markdown":
            parts.append(src.strip())
            continue
        if cell["cell_type"] != "code": continue
        code = "\n".join(l for l in lines if not l.strip().startswith("#|")).strip()
        if code: parts.append(f"```python\n{code}\n```")
        texts = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream": texts.append("".join(out["text"]))
            elif "data" in out and "text/plain" in out["data"] and "image/png" not in out["data"]:
                texts.append("".join(out["data"]["text/plain"]) + "\n")
        text = "".join(texts).rstrip()
        if text: parts.append(f"```\n{text}\n```")
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    want = render()
    readme = ROOT / "README.md"
    if "--check" in sys.argv[1:]:
        if not readme.exists() or readme.read_text(encoding="utf-8") != want:
            sys.exit("README.md is out of date with nbs/index.ipynb: run `python tools/readme.py`")
    else:
        readme.write_text(want, encoding="utf-8")
