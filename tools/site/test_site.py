"""Tests of the website's build and browser check: each check can fail, on small made-up books.

    pytest -p no:nbval tools/site/test_site.py      (the browser tests need /usr/bin/chromium)"""
import json, re, sys
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build, check   # noqa: E402
from made_book import notebook as _nb   # noqa: E402

needs_chromium = pytest.mark.skipif(not Path(check.CHROMIUM).exists(), reason="no /usr/bin/chromium")
PNG = Path(__file__).resolve().parents[2] / "results" / "bench" / "cpu.png"


def _book(tmp: Path, **extra) -> Path:
    "A two-chapter book: index and chapter 00 (math, a committed figure, a hidden cell, a link to chapter 00)."
    nbs = tmp / "nbs"
    nbs.mkdir()
    pages = {
        "index": _nb(("markdown", "# A book\n\n> Two pages.\n\nRead chapter 00 first; `00_metric.ipynb` is it."),
                     ("code", "#| hide\nprint('a hidden cell')")),
        "00_metric": _nb(("markdown", "# The first chapter\n\nInline $x^\\top M x$ and\n\n$$\\frac{a}{b}$$"),
                         ("code", "#| echo: false\nprint(1)", [{"output_type": "stream", "name": "stdout",
                                                                "text": "1\n"}]),
                         ("markdown", f"![a figure]({PNG.relative_to(PNG.parents[2]).as_posix()})"),
                         ("markdown", "Back to the [index](index.ipynb); chapters 00 and 00.")),
    }
    pages.update(extra)
    for name, nb in pages.items():
        (nbs / f"{name}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return nbs


def _build(tmp: Path, nbs: Path) -> int:
    return build.main(["--nbs", str(nbs), "--proc", str(tmp / "proc"), "--out", str(tmp / "site")])


def test_order_and_links():
    paths = [Path(f"{n}.ipynb") for n in ("12_bench", "11a_budget", "index", "01_generator", "11_experiments")]
    assert [p.stem for p in sorted(paths, key=build.chapter_key)] == \
        ["index", "01_generator", "11_experiments", "11a_budget", "12_bench"]
    ch = build.chapter_map(paths)
    md = build.linkify("See chapter 01, chapters 11 and 11a, `12_bench.ipynb`; not $chapter 01$ nor `chapter 01`.",
                       ch, {"DamchaAttention": "04_attention.ipynb#damchaattention"}, "index")
    assert md == ("See chapter [01](01_generator.ipynb), chapters [11](11_experiments.ipynb) and "
                  "[11a](11a_budget.ipynb), [`12_bench.ipynb`](12_bench.ipynb); not $chapter 01$ nor `chapter 01`.")
    assert build.linkify("`DamchaAttention`", ch, {"DamchaAttention": "a.ipynb#x"}, "index") == \
        "[`DamchaAttention`](a.ipynb#x)"


def test_links_to_repository_files():
    "A link to a file of the repository points at the repository's host; pages, images and missing files are left."
    md = ("[CONTRIBUTING.md](CONTRIBUTING.md), [its CI](CONTRIBUTING.md#what-ci-runs), [00](00_metric.ipynb), "
          "![fig](results/bench/cpu.png), [gone](no-such-file.md), [web](https://example.org/x.md)")
    got = build.resolve_repo_links(md, build.ROOT / "nbs", base_url="https://host/r/blob/main")
    assert got == ("[CONTRIBUTING.md](https://host/r/blob/main/CONTRIBUTING.md), "
                   "[its CI](https://host/r/blob/main/CONTRIBUTING.md#what-ci-runs), [00](00_metric.ipynb), "
                   "![fig](results/bench/cpu.png), [gone](no-such-file.md), [web](https://example.org/x.md)"), got
    assert build.repo_url().startswith("https://") and build.repo_url().endswith("/blob/main")


def test_build_fails_naming_the_notebook(tmp_path, capsys):
    bad = _nb(("markdown", "# Broken\n\n```{no-such-directive}\nx\n```"))
    assert _build(tmp_path, _book(tmp_path, **{"01_broken": bad})) == 1
    err = capsys.readouterr().err
    assert "site build FAILED" in err and "01_broken.ipynb" in err


def test_build_fails_on_an_error_output(tmp_path, capsys):
    bad = _nb(("markdown", "# Broken"), ("code", "1/0", [{"output_type": "error", "ename": "ZeroDivisionError",
                                                           "evalue": "division by zero", "traceback": []}]))
    assert _build(tmp_path, _book(tmp_path, **{"01_broken": bad})) == 1
    assert "01_broken.ipynb: cell 1 has an error output (ZeroDivisionError" in capsys.readouterr().err


def test_build_fails_on_a_missing_image(tmp_path, capsys):
    bad = _nb(("markdown", "# Broken\n\n![gone](nowhere/gone.png)"))
    assert _build(tmp_path, _book(tmp_path, **{"01_broken": bad})) == 1
    assert "01_broken.ipynb: the image nowhere/gone.png" in capsys.readouterr().err


def test_blank_screenshot(tmp_path):
    from PIL import Image
    Image.new("RGB", (200, 100), "white").save(tmp_path / "blank.png")
    assert "looks blank" in check.not_blank(tmp_path / "blank.png")
    assert check.not_blank(PNG) is None


@needs_chromium
def test_check_passes_then_fails_on_a_broken_page(tmp_path):
    nbs = _book(tmp_path)
    assert _build(tmp_path, nbs) == 0
    site = tmp_path / "site"
    page = (site / "00_metric.html").read_text(encoding="utf-8")
    assert "a hidden cell" not in (site / "index.html").read_text(encoding="utf-8")   # the `#| hide` cell is gone
    assert "print(1)" not in page and "echo" not in page                       # `#| echo: false`: output only
    order = [p.stem for p in build.book_order(nbs)]
    assert check.run(site, tmp_path / "shots", order, search_word="first") == []
    broken = page.replace("</article>", '<p>raw $x^2$ and \\frac{a}{b}</p><img src="_images/missing.png">'
                          '<a href="nowhere.html">x</a><pre>#| export\nx = 1</pre>'
                          '<script src="http://203.0.113.9/cdn.js"></script></article>')
    (site / "00_metric.html").write_text(broken, encoding="utf-8")
    failures = "\n".join(check.run(site, tmp_path / "shots", order, search_word="first"))
    for want in ("raw TeX in the text", "image does not load: _images/missing.png", "HTTP 404",
                 "leads to no file", "an nbdev directive is shown", "a request leaves the site: http://203.0.113.9"):
        assert want in failures, (want, failures)


def test_readme_section_and_ci_block():
    "The README's website section has one command, and CI runs its build step verbatim, then the browser check."
    root = Path(__file__).resolve().parents[2]
    text = (root / "README.md").read_text(encoding="utf-8")
    assert "## The book as a website" in text
    section = text.split("## The book as a website", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert len(blocks) == 1, blocks
    install, build_cmd = blocks[0].strip().split(" && ")
    assert install == "pip install -e '.[docs]'"
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    block = ci.split('echo "== website: build and browser check"', 1)[1].split('echo "== CI passed"')[0]
    lines = [l.strip() for l in block.splitlines()]
    assert build_cmd in lines and "python tools/site/check.py --site _site --shots _shots" in lines
    assert "python -m pytest -p no:nbval -q tools/site/test_site.py" in lines


def test_names_from_other_libraries_are_not_linked(tmp_path):
    nb = tmp_path / "13_x.ipynb"
    nb.write_text(json.dumps(_nb(("code", "%matplotlib inline\nfrom timm.models import VisionTransformer\n"
                                          "from damcha.models import Decoder\nimport numpy as np"))), encoding="utf-8")
    assert build.foreign_names(nb) == {"VisionTransformer", "np"}
