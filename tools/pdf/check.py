"""Check the book's PDF as a reader would find it: all there, every glyph, math typeset, figures in.

    python tools/pdf/check.py _pdf/damcha.pdf --log _pdf/damcha.log

Needs poppler-utils (`pdfinfo`, `pdftotext`, `pdftohtml`, `pdfimages`). The checks, each of which fails the run:

- pages: the page count (printed) is within `--min-pages` and `--max-pages` (a book cut short, or one that blew up);
- glyphs: the LaTeX log has no "Missing character: There is no ... in font ..." line (XeTeX writes one for each
  character that the font it is set in lacks, and prints nothing in its place);
- titles: every notebook's title (its first `# ` heading, `--nbs`) is in the PDF's text (`pdftotext`), and a
  chapter: a top-level bookmark of the PDF (`00 The cross-head metric`) ends with it;
- math: no raw TeX (`$...$`, `\\frac`) in the text outside code, i.e. in a font other than the monospaced one, and at
  least `--min-math` pieces of text set in TeX's math fonts (`pdftohtml -xml` says which font each piece is in);
- figures: the PDF holds at least as many images (`pdfimages -list`, soft masks not counted) as the processed
  notebooks have figures (image outputs and markdown images in `--proc`, by default the `proc/` folder that
  `tools/pdf/build.py` writes beside the PDF), or `--min-images` when given.

Exit 0 when every check passes, 1 otherwise; each failure is printed with examples."""
from __future__ import annotations
import argparse, html, json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NB_NAME = re.compile(r"^(?P<num>\d+)(?P<suf>[a-z]?)_")


def _run(*cmd: str) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except FileNotFoundError:
        raise SystemExit(f"no `{cmd[0]}`: install poppler-utils (apt-get install poppler-utils)")
    if r.returncode != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}")
    return r.stdout


# --- pages ---------------------------------------------------------------------------------------------------------

def page_count(pdf: Path) -> int:
    m = re.search(r"^Pages:\s+(\d+)", _run("pdfinfo", str(pdf)), re.M)
    if not m:
        raise SystemExit(f"pdfinfo printed no page count for {pdf}")
    return int(m[1])


def check_pages(n: int, lo: int, hi: int) -> list[str]:
    return [] if lo <= n <= hi else [f"{n} pages, outside the sane range {lo} to {hi}"]


# --- glyphs --------------------------------------------------------------------------------------------------------

MISSING = re.compile(r"Missing character: There is no (.+?) in font ([^!\n]*)")


def check_log(log: str) -> list[str]:
    "One problem per character and font that the log says is missing (XeTeX's and LuaTeX's wording)."
    found: dict[tuple[str, str], int] = {}
    for m in MISSING.finditer(log):
        key = (m[1], m[2].split("/")[0].split(":")[0])
        found[key] = found.get(key, 0) + 1
    other = len(re.findall(r"Missing character", log)) - sum(found.values())
    out = [f"no glyph for {ch} in font {font} ({n} times)" for (ch, font), n in sorted(found.items())]
    if other:
        out.append(f"{other} other 'Missing character' lines in the log")
    return out


# --- titles --------------------------------------------------------------------------------------------------------

def book_order(nbs: Path) -> list[Path]:
    "index first, then by chapter number, `11` before `11a` (as tools/site/build.py orders them)."
    def key(p: Path):
        if p.stem == "index":
            return (-1, "")
        m = NB_NAME.match(p.name)
        return (int(m["num"]), m["suf"]) if m else (10**6, p.stem)
    return sorted((p for p in nbs.glob("*.ipynb") if not p.name.startswith(("_", "."))), key=key)


def notebook_title(nb: dict) -> str | None:
    "The first `# ` heading of a notebook's markdown cells."
    for c in nb.get("cells", []):
        if c.get("cell_type") == "markdown":
            src = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            m = re.search(r"^# (.+)$", src, re.M)
            if m:
                return m[1].strip()
    return None


def plain(s: str) -> str:
    "Text as it reads, for comparison: no markdown marks, typographic quotes as plain ones, one case, single spaces."
    s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)              # [text](link) -> text
    s = re.sub(r"[`*]", "", s)
    s = s.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ",
                                   "\u2010": "-", "\u2011": "-", "\ufb01": "fi", "\ufb02": "fl"}))
    return re.sub(r"\s+", " ", s).strip().lower()


def parse_outline(xml: str) -> list[tuple[int, str]]:
    "(depth, title) of each bookmark in `pdftohtml -xml` output; chapters are at depth 1."
    out, depth = [], 0
    for m in re.finditer(r"<outline>|</outline>|<item[^>]*>(.*?)</item>", xml, re.S):
        if m[0] == "<outline>":
            depth += 1
        elif m[0] == "</outline>":
            depth -= 1
        else:
            out.append((depth, html.unescape(re.sub(r"<[^>]+>", "", m[1]))))
    return out


def check_titles(text: str, outline: list[tuple[int, str]], titles: list[tuple[str, str]]) -> list[str]:
    """Each (notebook, title) whose title is not in the text, or is no chapter: no top-level bookmark ends with it
    (a chapter's bookmark is `00 The cross-head metric`). A word hyphenated across a line break counts as whole."""
    flat = plain(text)
    joined = plain(re.sub(r"-\s*\n\s*", "", text))
    chapters = [plain(t) for d, t in outline if d == 1]
    out = []
    for name, title in titles:
        t = plain(title)
        if t not in flat and t not in joined:
            out.append(f"{name}: its title {title!r} is not in the PDF's text")
        elif not any(c == t or c.endswith(" " + t) for c in chapters):
            out.append(f"{name}: no chapter titled {title!r} in the PDF's bookmarks")
    return out


# --- math ----------------------------------------------------------------------------------------------------------

MATH_FONT = re.compile(r"^(CM(MI|SY|EX|R|BX|MIB|BSY)\d+|MSAM\d+|MSBM\d+|EUFM\d+|rsfs\d+|.*Math)", re.I)
MONO_FONT = re.compile(r"Mono|Courier|CMTT|Typewriter|Code", re.I)
RAW_TEX = re.compile(r"\$\$|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$|\$[^$\s][^$\n]*\$|\\(?:frac|sqrt|mathbb|mathbf|mathrm|"
                     r"operatorname|sum|prod|int|left|right|begin|end|top|cdot|times|alpha|beta|gamma|lambda|sigma|"
                     r"tau|theta|varepsilon|epsilon|mu|le|ge|leq|geq|in|mapsto|to|infty|text|hat|tilde|bar)\b")


def pdf_xml(pdf: Path) -> str:
    "`pdftohtml -xml`: every piece of text with its font and page, and the bookmarks."
    return _run("pdftohtml", "-xml", "-i", "-q", "-stdout", str(pdf))


def parse_pieces(xml: str) -> list[tuple[int, str, str]]:
    fonts = {m[1]: m[2].split("+")[-1] for m in re.finditer(r'<fontspec id="(\d+)"[^>]*family="([^"]*)"', xml)}
    out, page = [], 0
    for m in re.finditer(r'<page number="(\d+)"|<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml, re.S):
        if m[1]:
            page = int(m[1])
            continue
        out.append((page, fonts.get(m[2], "?"), html.unescape(re.sub(r"<[^>]+>", "", m[3]))))
    return out


def check_math(pieces: list[tuple[int, str, str]], min_math: int) -> tuple[list[str], int]:
    "Raw TeX in text outside code, and too little text in math fonts; also the count of pieces in math fonts."
    raw = [(p, f, t) for p, f, t in pieces if not MONO_FONT.search(f) and RAW_TEX.search(t)]
    math = sum(1 for _, f, _ in pieces if MATH_FONT.match(f))
    out = [f"raw TeX outside code on page {p} ({f}): {t.strip()[:100]!r}" for p, f, t in raw[:10]]
    if len(raw) > 10:
        out.append(f"... and {len(raw) - 10} more pieces of raw TeX")
    if math < min_math:
        out.append(f"only {math} pieces of text in TeX's math fonts (at least {min_math} expected): is math typeset?")
    return out, math


# --- figures -------------------------------------------------------------------------------------------------------

def count_images(listing: str) -> int:
    "Images in `pdfimages -list` output (soft masks and stencils are not pictures of their own)."
    n = 0
    for line in listing.splitlines()[2:]:
        cols = line.split()
        if len(cols) > 2 and cols[0].isdigit() and cols[2] == "image":
            n += 1
    return n


def expected_figures(proc: Path) -> int:
    "Figures the processed notebooks hold: image outputs, and images in markdown."
    n = 0
    for f in proc.glob("*.ipynb"):
        for c in json.loads(f.read_text(encoding="utf-8")).get("cells", []):
            for o in c.get("outputs", []):
                if any(k.startswith("image/") for k in o.get("data", {})):
                    n += 1
            if c.get("cell_type") == "markdown":
                src = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                n += len(re.findall(r"!\[[^\]]*\]\([^)]+\)", src))
    return n


def check_images(n: int, minimum: int) -> list[str]:
    return [] if n >= minimum else [f"{n} images in the PDF, fewer than the {minimum} figures expected"]


# --- main ----------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pdf", type=Path)
    ap.add_argument("--log", type=Path, required=True, help="the LaTeX log (build.py copies it beside the PDF)")
    ap.add_argument("--nbs", type=Path, default=ROOT / "nbs", help="the notebooks, for their titles (default: nbs)")
    ap.add_argument("--proc", type=Path, help="the processed notebooks, for the figures (default: proc/ beside "
                                              "the PDF)")
    ap.add_argument("--min-pages", type=int, default=300)
    ap.add_argument("--max-pages", type=int, default=2000)
    ap.add_argument("--min-math", type=int, default=200, help="pieces of text in math fonts (default: 200)")
    ap.add_argument("--min-images", type=int, help="images the PDF must hold (default: the figures in --proc)")
    a = ap.parse_args(argv)
    for f, what in ((a.pdf, "PDF"), (a.log, "log")):
        if not f.is_file():
            ap.error(f"no {what} {f}")
    notebooks = book_order(a.nbs)
    if not notebooks:
        ap.error(f"--nbs: no notebooks in {a.nbs}")
    proc = a.proc or a.pdf.parent / "proc"
    if a.min_images is None:
        if not proc.is_dir():
            ap.error(f"no {proc} to count the figures in: pass --proc or --min-images")
        a.min_images = expected_figures(proc)

    results: dict[str, list[str]] = {}
    pages = page_count(a.pdf)
    results[f"pages: {pages} (sane range {a.min_pages} to {a.max_pages})"] = check_pages(pages, a.min_pages,
                                                                                         a.max_pages)
    results["glyphs: no 'Missing character' in the LaTeX log"] = check_log(
        a.log.read_text(encoding="utf-8", errors="replace"))
    titles = []
    for p in notebooks:
        t = notebook_title(json.loads(p.read_text(encoding="utf-8")))
        titles.append((p.name, t if t is not None else ""))
    xml = pdf_xml(a.pdf)
    missing_title = [f"{n}: no `# title` heading" for n, t in titles if not t]
    results[f"titles: all {len(titles)} chapter titles in the text and as chapters"] = missing_title + check_titles(
        _run("pdftotext", "-enc", "UTF-8", str(a.pdf), "-"), parse_outline(xml), [(n, t) for n, t in titles if t])
    problems, math = check_math(parse_pieces(xml), a.min_math)
    results[f"math: typeset ({math} pieces of text in math fonts), no raw TeX outside code"] = problems
    images = count_images(_run("pdfimages", "-list", str(a.pdf)))
    results[f"figures: {images} images, at least {a.min_images}"] = check_images(images, a.min_images)

    failed = 0
    for name, problems in results.items():
        print(f"{'ok    ' if not problems else 'FAILED'} {name}")
        for p in problems:
            print(f"         {p}")
        failed += bool(problems)
    print(f"PDF check {'passed' if not failed else f'FAILED ({failed} of {len(results)} checks)'}: {a.pdf}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
