"""Build the book as one PDF, offline: the website's processed notebooks, Sphinx's LaTeX builder, then XeLaTeX.

    pip install -e '.[docs]' && python tools/pdf/build.py --out _pdf        # writes _pdf/damcha.pdf

Needs XeLaTeX and latexmk from Debian's TeX Live, and the fonts `tools/pdf/conf.py` names (as root):

    apt-get install -y --no-install-recommends latexmk texlive-latex-recommended texlive-latex-extra \\
        texlive-fonts-recommended texlive-xetex fonts-freefont-otf fonts-dejavu-core fonts-wqy-microhei poppler-utils

The steps:

1. The notebooks of `nbs/`, in the book's order (index, 00, 01, 01a, ...), are processed exactly as the website's
   build does it (`tools/site/build.py`: nbdev's processors, `#| hide`, `#| echo: false`, `#| export` cells under
   their `show_doc` entry, links between chapters), into `OUT/proc/`. One difference: each chapter's first `# `
   heading gets its notebook's number in front (`00 The cross-head metric`), since LaTeX does not number the
   chapters (its "Chapter 7" would not be the prose's "chapter 00"); and a root document, `_book`, holds only the
   toctree, so that every notebook, index included, is one chapter.
2. Sphinx's LaTeX builder (`tools/site/conf.py`'s settings, with `tools/pdf/conf.py`'s LaTeX ones) writes
   `OUT/latex/damcha.tex`; a Sphinx warning fails the build (`-W`), as for the website.
3. latexmk runs XeLaTeX on it (two passes, for the table of contents) and the PDF is copied to `OUT/damcha.pdf`,
   the log to `OUT/damcha.log` (which `tools/pdf/check.py --log` reads).

The build fails (exit 1) with the notebook named where it can be: a notebook that cannot be processed, a Sphinx
warning, or a LaTeX error (its message, the line of `damcha.tex`, and the chapter that line belongs to)."""
from __future__ import annotations
import argparse, importlib.util, json, os, re, shutil, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


site = _load("damcha_site_build", ROOT / "tools" / "site" / "build.py")   # the website's processing, as it is

BuildError = site.BuildError
TEX = "damcha"                     # damcha.tex, damcha.pdf, damcha.log
ROOT_DOC = "_book"                 # the root document (tools/pdf/conf.py's root_doc); no notebook starts with `_`
ROOT_TITLE = "damcha"              # dropped by Sphinx: the title page's title is conf.py's `project`


def number_title(nb: dict, stem: str) -> None:
    "`# Title` -> `# 00 Title` in the notebook's first markdown heading (index keeps its own)."
    m = site.NB_NAME.match(stem + ".ipynb")
    if not m:
        return
    for c in nb["cells"]:
        if c["cell_type"] == "markdown" and re.search(r"^# ", c["source"], re.M):
            c["source"] = re.sub(r"^# ", f"# {m['num']}{m['suf']} ", c["source"], count=1, flags=re.M)
            return
    raise BuildError(f"{stem}.ipynb: no `# title` heading (the chapter's title in the PDF)")


def process(nbs: Path, proc: Path) -> list[Path]:
    "The website's processing of every notebook into `proc` (`tools/site/build.py`'s `build`, up to Sphinx)."
    notebooks = site.book_order(nbs)
    if not notebooks or notebooks[0].stem != "index":
        raise BuildError(f"{nbs}: no index.ipynb (the first page)")
    chapters = site.chapter_map(notebooks)
    shutil.rmtree(proc, ignore_errors=True)
    proc.mkdir(parents=True)
    processed = {}
    for p in notebooks:
        try:
            processed[p.stem] = site.process_notebook(p)
        except BuildError:
            raise
        except Exception as e:
            raise BuildError(f"{p}: could not be processed: {e!r}") from e
    api = site.api_targets(processed)
    for p in notebooks:
        nb = processed[p.stem]
        foreign = site.foreign_names(p)
        own_api = {k: v for k, v in api.items() if k not in foreign}
        for c in nb["cells"]:
            if c["cell_type"] == "markdown":
                c["source"] = site.resolve_images(site.resolve_repo_links(
                    site.linkify(c["source"], chapters, own_api, p.stem), nbs), nbs, proc, p)
        if p.stem != "index":
            number_title(nb, p.stem)
        (proc / p.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    # The root document holds only the toctree, so that every notebook, index included, is a chapter (with the
    # toctree in index, as on the website, the chapters would be sections of index's last section). The table of
    # contents lists chapters and their `## ` sections (maxdepth 2).
    book = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": f"# {ROOT_TITLE}"},
                      {"cell_type": "markdown", "metadata": {},
                       "source": "```{toctree}\n:maxdepth: 2\n\n" + "\n".join(q.stem for q in notebooks) + "\n```"}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (proc / f"{ROOT_DOC}.ipynb").write_text(json.dumps(book, indent=1) + "\n", encoding="utf-8")
    return notebooks


def sphinx_latex(proc: Path, latex: Path, notebooks: list[Path]) -> Path:
    shutil.rmtree(latex, ignore_errors=True)
    cmd = [sys.executable, "-m", "sphinx", "-b", "latex", "-W", "--keep-going", "-q", "-c", str(HERE),
           str(proc), str(latex)]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}             # nbformat's MissingIDFieldWarning, once a notebook
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()
        named = sorted({q.name for q in notebooks if q.stem in msg})
        raise BuildError(f"Sphinx failed (exit {r.returncode}) on {', '.join(named) or 'the book'}:\n{msg[-6000:]}")
    tex = latex / f"{TEX}.tex"
    if not tex.is_file():
        raise BuildError(f"Sphinx wrote no {tex}")
    return tex


DOC_LABEL = re.compile(r"\\label\{\\detokenize\{([^}:]+)::doc\}\}")


def latex_error(log: str, tex: Path) -> str:
    "The first LaTeX error of a log, its context, and the notebook the failing line of the .tex comes from."
    lines = log.splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith("!")), None)
    if first is None:
        tail = "\n".join(lines[-15:])
        return f"no `!` error line in the log; its end:\n{tail}"
    context = "\n".join(lines[first:first + 8]).rstrip()
    where = ""
    m = re.search(r"^l\.(\d+)", "\n".join(lines[first:first + 20]), re.M)
    if m and tex.is_file():
        n = int(m[1])
        src = tex.read_text(encoding="utf-8").splitlines()[:n]
        docs = [d for l in src for d in DOC_LABEL.findall(l)]
        where = f" at line {n} of {tex.name}" + (f", in {docs[-1]}.ipynb" if docs else "")
    return f"LaTeX error{where}:\n{context}"


def xelatex(tex: Path) -> tuple[Path, Path]:
    "latexmk -xelatex in the LaTeX folder: the PDF and the log."
    if not shutil.which("latexmk") or not shutil.which("xelatex"):
        raise BuildError("no latexmk or xelatex on PATH: install Debian's TeX Live packages (see "
                         "`python tools/pdf/build.py --help` or CONTRIBUTING.md)")
    cmd = ["latexmk", "-pdfxe", "-interaction=nonstopmode", "-halt-on-error", tex.name]
    r = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True, env={**os.environ, "LATEXOPTS": ""})
    log = tex.with_suffix(".log")
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    pdf = tex.with_suffix(".pdf")
    if r.returncode != 0 or not pdf.is_file():
        detail = latex_error(text, tex) if text else (r.stdout + r.stderr)[-4000:]
        raise BuildError(f"latexmk failed (exit {r.returncode}); the log is {log}\n{detail}")
    return pdf, log


def build(nbs: Path, out: Path) -> tuple[Path, Path, list[Path]]:
    proc, latex = out / "proc", out / "latex"
    notebooks = process(nbs, proc)
    tex = sphinx_latex(proc, latex, notebooks)
    pdf, log = xelatex(tex)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy2(pdf, out / f"{TEX}.pdf")
    shutil.copy2(log, out / f"{TEX}.log")
    return out / f"{TEX}.pdf", out / f"{TEX}.log", notebooks


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="_pdf", help="folder for damcha.pdf, damcha.log and the intermediate files "
                                                  "(proc/, latex/) (default: _pdf)")
    ap.add_argument("--nbs", default="nbs", help="the notebooks (default: nbs)")
    a = ap.parse_args(argv)
    out, nbs = (Path(x) if Path(x).is_absolute() else ROOT / x for x in (a.out, a.nbs))
    if not nbs.is_dir():
        ap.error(f"--nbs: no folder {nbs}")
    t0 = time.time()
    try:
        pdf, log, notebooks = build(nbs, out)
    except BuildError as e:
        print(f"PDF build FAILED: {e}", file=sys.stderr)
        return 1
    print(f"built {pdf} ({pdf.stat().st_size / 2**20:.1f} MiB) from {len(notebooks)} notebooks in "
          f"{time.time() - t0:.0f} s; the LaTeX log is {log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
