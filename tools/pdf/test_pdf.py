"""Tests of the PDF's build and check: each check fails on a made-up bad input and passes on a good one; a two-page
book is built (not the whole one), and a LaTeX error fails its build with the notebook named.

    pytest -p no:nbval tools/pdf/test_pdf.py      (the builds need xelatex, latexmk and poppler-utils; ~30 s)"""
import base64, importlib.util, json, re, shutil, sys
from pathlib import Path
from types import SimpleNamespace
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build = _load("damcha_pdf_build", HERE / "build.py")
check = _load("damcha_pdf_check", HERE / "check.py")
conf = _load("damcha_pdf_conf", HERE / "conf.py")
_nb = _load("damcha_made_book", HERE.parent / "site" / "made_book.py").notebook

needs_tex = pytest.mark.skipif(not all(shutil.which(t) for t in ("latexmk", "xelatex", "pdftohtml")),
                               reason="no latexmk, xelatex or poppler-utils")
PNG = ROOT / "results" / "bench" / "cpu.png"


# --- each check, on made-up input ------------------------------------------------------------------------------------

def test_pages():
    assert check.check_pages(571, 300, 2000) == []
    assert check.check_pages(12, 300, 2000) == ["12 pages, outside the sane range 300 to 2000"]
    assert check.check_pages(5000, 300, 2000)


GOOD_LOG = """This is XeTeX, Version 3.141592653-2.6-0.999994 (TeX Live 2022/Debian)
Overfull \\hbox (2.1pt too wide) in paragraph at lines 10--10
Output written on damcha.xdv (571 pages, 1234 bytes).
"""


def test_log():
    assert check.check_log(GOOD_LOG) == []
    bad = GOOD_LOG + ("Missing character: There is no \u6211 (U+6211) in font DejaVu Sans Mono/OT:script=latn;"
                      "language=dflt;!\n") * 2 + "Missing character: There is no \u2192 in font FreeSerif:mode=node!\n"
    problems = check.check_log(bad)
    assert problems == ["no glyph for \u2192 in font FreeSerif (1 times)",
                        "no glyph for \u6211 (U+6211) in font DejaVu Sans Mono (2 times)"], problems


TITLES = [("index.ipynb", "damcha"), ("01b_ablations.ipynb", "The reference's ablations"),
          ("15_cli.ipynb", "The `damcha` command")]
OUTLINE_XML = """<outline><item page="1">damcha</item><outline><item page="1">Install</item></outline>
<item page="5">01b The reference\u2019s ablations</item><item page="9">15 The damcha command</item></outline>"""


def test_titles():
    text = "damcha\n\n01b THE REFERENCE\u2019S ABLATIONS\nWords.\n15 The damcha com-\nmand\n"
    outline = check.parse_outline(OUTLINE_XML)
    assert outline[:2] == [(1, "damcha"), (2, "Install")]
    assert check.check_titles(text, outline, TITLES) == []
    problems = check.check_titles(text.replace("ABLATIONS", "ABLATION"), outline, TITLES)
    assert problems == ["01b_ablations.ipynb: its title \"The reference's ablations\" is not in the PDF's text"]
    # in the text, but only as a section: not a chapter
    problems = check.check_titles(text, check.parse_outline(OUTLINE_XML.replace("<item page=\"9\">15 The damcha "
                                                                                 "command</item>", "")), TITLES)
    assert problems == ["15_cli.ipynb: no chapter titled 'The `damcha` command' in the PDF's bookmarks"]
    assert check.notebook_title({"cells": [{"cell_type": "code", "source": "# not this"},
                                           {"cell_type": "markdown", "source": ["> x\n", "# This one\n"]}]}) == \
        "This one"


def _xml(*pieces):
    fonts = {f: i for i, f in enumerate(dict.fromkeys(f for f, _ in pieces))}
    specs = "".join(f'<fontspec id="{i}" size="10" family="ABCDEF+{f}" color="#000000"/>\n' for f, i in fonts.items())
    texts = "".join(f'<text top="1" left="1" width="9" height="9" font="{fonts[f]}">{t}</text>\n' for f, t in pieces)
    return f'<pdf2xml>\n<page number="3" position="absolute">\n{specs}{texts}</page>\n</pdf2xml>'


def test_math():
    good = check.parse_pieces(_xml(("FreeSerif-Identity-H", "The score"), ("CMMI10", "x"), ("CMSY10", "&#8722;"),
                                   ("DejaVuSansMono", "label = r&quot;$\\frac{a}{b}$&quot;  # code may hold TeX")))
    assert good[1] == (3, "CMMI10", "x") and good[2][2] == "\u2212"
    assert check.check_math(good, 2) == ([], 2)
    problems, _ = check.check_math(good, 3)
    assert problems == ["only 2 pieces of text in TeX's math fonts (at least 3 expected): is math typeset?"]
    for raw in ("where $\\frac{a}{b}$ is", "the metric $M$", "$$", "a \\sqrt{d} b"):
        bad = good + check.parse_pieces(_xml(("FreeSerif-Identity-H", raw)))
        problems, _ = check.check_math(bad, 2)
        assert len(problems) == 1 and problems[0].startswith("raw TeX outside code on page 3 (FreeSerif"), raw


LISTING = """page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
--------------------------------------------------------------------------------------------
   5     0 image     640   480  rgb     3   8  image  no        12  0   100   100 20.1K 2.2%
   5     1 smask     640   480  gray    1   8  image  no        12  0   100   100 1.2K 0.4%
   9     2 image     640   480  rgb     3   8  image  no        15  0   100   100 20.1K 2.2%
"""


def test_figures(tmp_path):
    assert check.count_images(LISTING) == 2
    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [
        {"output_type": "display_data", "data": {"image/png": "...", "text/plain": "<Figure>"}},
        {"output_type": "stream", "name": "stdout", "text": "1"}]},
        {"cell_type": "markdown", "source": "![a picture](_files/x.png) and [a link](x.md)"}]}
    (tmp_path / "00_x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert check.expected_figures(tmp_path) == 2
    assert check.check_images(check.count_images(LISTING), 2) == []
    assert check.check_images(check.count_images(LISTING), 3) == ["2 images in the PDF, fewer than the 3 figures "
                                                                  "expected"]


# --- the build's pieces ----------------------------------------------------------------------------------------------

def test_chapter_titles_carry_their_number():
    nb = {"cells": [{"cell_type": "code", "source": "# a comment"},
                    {"cell_type": "markdown", "source": "> lead\n\n# The metric\n\n# Not this"}]}
    build.number_title(nb, "01a_learn")
    assert nb["cells"][1]["source"] == "> lead\n\n# 01a The metric\n\n# Not this"
    with pytest.raises(build.BuildError, match="02_x.ipynb: no `# title`"):
        build.number_title({"cells": [{"cell_type": "markdown", "source": "## only a section"}]}, "02_x")


def test_latex_error_names_the_notebook(tmp_path):
    tex = tmp_path / "damcha.tex"
    tex.write_text("\\begin{document}\n\\label{\\detokenize{index::doc}}\nx\n"
                   "\\label{\\detokenize{03_contract::doc}}\n\\chapter{03 The contract}\n$\\nosuchmacro$\n",
                   encoding="utf-8")
    log = ("(./damcha.tex\n! Undefined control sequence.\n<recently read> \\nosuchmacro \n\nl.6 $\\nosuchmacro\n"
           "                   $\n")
    msg = build.latex_error(log, tex)
    assert msg.startswith("LaTeX error at line 6 of damcha.tex, in 03_contract.ipynb:\n! Undefined control sequence")
    assert "no `!` error line" in build.latex_error("This is XeTeX\nno errors here\n", tex)


def test_chinese_characters_get_a_font(tmp_path):
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": 'x = "\u6211 \u732b"',
                                                             "outputs": []}]}), encoding="utf-8")
    config = SimpleNamespace(latex_elements={"preamble": "% before\n"})
    conf._cjk(SimpleNamespace(srcdir=str(tmp_path)), config)
    assert config.latex_elements["preamble"] == ('% before\n\\newunicodechar{\u6211}{{\\damchaCJK\\char"6211\\relax}}\n'
                                                 '\\newunicodechar{\u732b}{{\\damchaCJK\\char"732B\\relax}}\n')


# --- a two-page book, built -------------------------------------------------------------------------------------------

def _book(tmp: Path, **extra) -> Path:
    nbs = tmp / "nbs"
    nbs.mkdir()
    png = base64.b64encode(PNG.read_bytes()).decode()
    pages = {
        "index": _nb(("markdown", "# A small book\n\n> Two chapters.\n\nRead chapter 00 first."),
                     ("code", "#| hide\nprint('a hidden cell')")),
        "00_metric": _nb(("markdown", "# The first chapter\n\nInline $x^\\top M x \\le 1$ and\n\n"
                                      "$$\\frac{a}{b} = \\sum_{i=1}^{H} M_{ij}$$\n\n"
                                      "Unicode: \u00d7 \u2212 \u2264 \u2192 \u03b1 \u2500\u2502"),
                         ("code", "x = '\u6211 \u2192 \u03b1'  # " + "a long comment " * 12,
                          [{"output_type": "display_data", "metadata": {},
                            "data": {"image/png": png, "text/plain": "<Figure>"}}])),
    }
    pages.update(extra)
    for name, nb in pages.items():
        (nbs / f"{name}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return nbs


@needs_tex
def test_small_book_builds_and_passes_the_check(tmp_path, capsys):
    nbs = _book(tmp_path)
    assert build.main(["--nbs", str(nbs), "--out", str(tmp_path / "pdf")]) == 0, capsys.readouterr().err
    pdf, log = tmp_path / "pdf" / "damcha.pdf", tmp_path / "pdf" / "damcha.log"
    args = [str(pdf), "--log", str(log), "--nbs", str(nbs), "--min-pages", "2", "--max-pages", "20",
            "--min-math", "5"]
    assert check.main(args) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "figures: 1 images, at least 1" in out and "PDF check passed" in out
    text = check._run("pdftotext", str(pdf), "-")
    assert "a hidden cell" not in text and "00 The first chapter" in text
    # another notebook's title, absent from this PDF: the check fails
    (nbs / "01_more.ipynb").write_text(json.dumps(_nb(("markdown", "# A chapter not built"))), encoding="utf-8")
    assert check.main(args) == 1
    assert "01_more.ipynb: its title 'A chapter not built' is not in the PDF's text" in capsys.readouterr().out


@needs_tex
def test_latex_error_fails_the_build_naming_the_notebook(tmp_path, capsys):
    bad = _nb(("markdown", "# Broken\n\nMath MathJax knows and LaTeX does not: $\\nosuchmacro{x}$."))
    nbs = _book(tmp_path, **{"01_broken": bad})
    assert build.main(["--nbs", str(nbs), "--out", str(tmp_path / "pdf")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("PDF build FAILED: latexmk failed"), err
    assert re.search(r"LaTeX error at line \d+ of damcha.tex, in 01_broken.ipynb:\n! Undefined control sequence",
                     err), err


def test_contributing_and_ci_run_the_same_commands():
    "CONTRIBUTING.md's PDF section gives the commands that .ci/run's PDF section runs."
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## The book as a PDF", 1)[1].split("\n## ", 1)[0]
    commands = [l.strip() for b in re.findall(r"```bash\n(.*?)```", section, re.S) for l in b.strip().splitlines()
                if l.strip().startswith("python ")]
    assert "python tools/pdf/build.py --out _pdf" in commands
    assert "python tools/pdf/check.py _pdf/damcha.pdf --log _pdf/damcha.log" in commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    block = ci.split('echo "== the book as a PDF', 1)[1].split('echo "== CI passed"')[0]
    lines = [l.strip() for l in block.splitlines()]
    for c in commands + ["python -m pytest -p no:nbval -q tools/pdf/test_pdf.py"]:
        assert c in lines, c
