"""Build the book as a static website, offline: nbdev's notebook processors, then Sphinx with MyST-NB.

    pip install -e '.[docs]' && python tools/site/build.py --out _site

Every notebook in `nbs/` becomes one page, in the book's order (index, 00, 01, ..., 11, 11a, 11b, 12, ...). Nothing is
executed: the committed outputs are shown as they are. The steps:

1. nbdev's processors (`nbdev.processors`) apply the directives: `add_show_docs` adds a `show_doc` after every
   exported definition, and `#| hide` cells, `#| hide_line` lines, `%` magics and headings ending in ` -` go.
   `nbdev_proc_nbs` itself is not used: it first tries to install Quarto (with `sudo`, from the network), and it
   runs every cell that has an import in it to produce `show_doc`'s output, which fails for cells that also use names
   from cells it does not run. Here `show_doc` documents the object imported from the exported module instead.
2. The directives Quarto would apply are applied here: `#| echo: false` (output without code), `#| output: false`,
   `#| include: false`, `#| eval: false`; an `#| export` cell's source is folded under its API entry (one click
   opens it), a `#| default_exp` cell is dropped, and every `#|` line is removed from what is shown.
3. Links: "chapter 01", "chapters 00 to 04", `01_generator.ipynb` become links to the chapter's page, a name in
   backticks that a chapter exports (`DamchaAttention`) a link to its API entry; a markdown image written relative to
   the repository root (as the README needs) is found there, and a link to a repository file that is no page
   (`CONTRIBUTING.md`) points at that file on the repository's host (`git_url` of settings.ini).
4. Sphinx (`tools/site/conf.py`) renders the processed notebooks in `_proc/` with MyST-NB (execution off), Furo's
   navigation and Sphinx's own search index, and MathJax from the `sphinx-mathjax-offline` package, copied into the
   site: no page loads anything from another host.

The build fails (exit 1, the notebook named) if a notebook cannot be read or processed, holds an error output, or
Sphinx warns about it (`-W`: an unknown directive, a missing image, a link to no page)."""
from __future__ import annotations
import argparse, ast, configparser, importlib, json, re, shutil, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NB_NAME = re.compile(r"^(?P<num>\d+)(?P<suf>[a-z]?)_")


class BuildError(Exception):
    "A notebook that does not render: the message names it."


def chapter_key(path: Path) -> tuple:
    "The book's order: index first, then by chapter number, `11` before `11a`."
    if path.stem == "index":
        return (-1, "")
    m = NB_NAME.match(path.name)
    if not m:
        return (10**6, path.stem)
    return (int(m["num"]), m["suf"])


def book_order(nbs: Path) -> list[Path]:
    return sorted((p for p in nbs.glob("*.ipynb") if not p.name.startswith(("_", "."))), key=chapter_key)


def chapter_map(notebooks: list[Path]) -> dict[str, str]:
    "Chapter numbers as the prose writes them ('02', '2', '11a') -> the notebook's stem."
    out = {}
    for p in notebooks:
        m = NB_NAME.match(p.name)
        if m:
            out[m["num"] + m["suf"]] = p.stem
            out[str(int(m["num"])) + m["suf"]] = p.stem
    return out


# --- step 1 and 2: nbdev's processors, show_doc from the package, Quarto's directives --------------------------------

SOURCE_LINK = re.compile(r"^\[source\]\([^)]*\)\{[^}]*\}\s*$", re.M)


def show_doc_markdown(module, name: str) -> str:
    "nbdev's `show_doc` for `module.name` (a dotted name for a method), as markdown MyST reads."
    from nbdev.showdoc import show_doc
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    md = show_doc(obj, name=name)._repr_markdown_()
    md = SOURCE_LINK.sub("", md)                                   # a link to a repository host, in Quarto's syntax
    md = re.sub(r"^\s*---\s*\n", "", md)                           # the rule above each entry: CSS draws one
    return md.strip()


def _directive_lines(src: str) -> tuple[list[str], str]:
    "Leading `#|` lines of a cell and the rest."
    lines = src.splitlines(True)
    i = 0
    while i < len(lines) and lines[i].strip().startswith("#|"):
        i += 1
    return [l.strip() for l in lines[:i]], "".join(lines[i:])


def _quarto(lines: list[str]) -> dict[str, str]:
    out = {}
    for l in lines:
        m = re.match(r"#\|\s*([\w-]+)\s*:\s*(.*)$", l)
        if m:
            out[m[1]] = m[2].strip().strip("'\"").lower()
    return out


def process_notebook(src: Path) -> dict:
    "The notebook `src` with nbdev's processors and Quarto's directives applied, as a plain notebook dict."
    from execnb.nbio import read_nb, mk_cell
    from nbdev.process import NBProcessor
    from nbdev import processors as P
    nb = read_nb(src)
    default_exp = P._default_exp(nb)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                what = f"{out.get('ename')}: {out.get('evalue')}"
                raise BuildError(f"{src}: cell {cell.idx_} has an error output ({what})")
    procs = [P.populate_language, P.add_show_docs, P.strip_ansi, P.hide_line, P.filter_stream_, P.rm_header_dash,
             P.clean_magics, P.hide_, P.strip_hidden_metadata]
    NBProcessor(nb=nb, procs=procs, rm_directives=True, process=True)
    module, target = None, default_exp
    cells = []
    for cell in nb.cells:
        src_text = cell.source or ""
        d = getattr(cell, "directives_", {}) or {}
        if {"export", "exports"} & set(d):                         # `#| export other_module` exports elsewhere
            target = (d.get("export") or d.get("exports") or [default_exp])[0]
        if getattr(cell, "has_sd", False):                        # a show_doc(...) cell add_show_docs inserted
            if target is None:
                raise BuildError(f"{src}: an exported definition but no `#| default_exp`")
            if module is None or module.__name__ != f"damcha.{target}":
                module = importlib.import_module(f"damcha.{target}")
            name = re.match(r"show_doc\((.+)\)$", src_text.strip())[1]
            try:
                md = show_doc_markdown(module, name)
            except Exception as e:
                raise BuildError(f"{src}: show_doc({name}) from damcha.{target} failed: {e!r}") from e
            cells.append({"cell_type": "markdown", "metadata": {}, "source": md, "_doc": True})
            continue
        dlines, body = _directive_lines(src_text)
        q = _quarto(dlines)
        if "default_exp" in d or q.get("include") == "false":
            continue
        if cell.cell_type == "markdown":
            cells.append({"cell_type": "markdown", "metadata": {}, "source": src_text})
            continue
        if cell.cell_type != "code":
            continue
        tags = []
        outputs = [dict(o) for o in cell.get("outputs", [])]
        if q.get("echo") == "false":
            tags.append("remove-input")
        if q.get("output") == "false" or q.get("eval") == "false":
            outputs = []
        if {"export", "exporti"} & set(d) or q.get("code-fold") in ("true", "show"):
            tags.append("hide-input")
        if not body.strip() and not outputs:
            continue
        if not body.strip():
            tags.append("remove-input")
        cells.append({"cell_type": "code", "metadata": {"tags": tags} if tags else {}, "source": body.rstrip(),
                      "outputs": outputs, "execution_count": None, "_export": "hide-input" in tags})
    cells = _source_after_docs(cells)
    if not cells:
        raise BuildError(f"{src}: nothing left to show after processing")
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                         "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _source_after_docs(cells: list[dict]) -> list[dict]:
    "An exported cell's folded source after the API entries of what it defines (nbdev's `mv_exports`, for all)."
    out, i = [], 0
    while i < len(cells):
        c = cells[i]
        j = i + 1
        while c.get("_export") and j < len(cells) and cells[j].get("_doc"):
            j += 1
        out += cells[i + 1:j] + [c]
        i = j
    for c in out:
        c.pop("_export", None)
        c.pop("_doc", None)
    return out


# --- step 3: links -------------------------------------------------------------------------------------------------

# pieces of markdown that are not prose: headings, fenced code, inline code, display and inline math, links and images
PROTECT = re.compile(r"(?m:^#{1,6} [^\n]*$)|```.*?```|~~~.*?~~~|`[^`\n]+`|\$\$.*?\$\$|(?<!\\)\$[^$\n]+?(?<!\\)\$"
                     r"|!?\[[^\]]*\]\([^)]*\)|<[^>\n]+>", re.S)
CHAPTERS = re.compile(r"\b(?P<word>[Cc]hapters?)(?P<sep>\s+)(?P<nums>\d{1,2}[a-z]?(?:(?:,\s*|,?\s+(?:and|to|or)\s+)"
                      r"\d{1,2}[a-z]?)*)\b(?P<poss>'s)?")
NB_FILE = re.compile(r"\b(?P<stem>\d{2}[a-z]?_\w+|index)\.ipynb\b")
LINKS = re.compile(f"{CHAPTERS.pattern}|{NB_FILE.pattern}")


def _link_chapters(text: str, chapters: dict[str, str]) -> str:
    def one(n):
        stem = chapters.get(n[0])
        return f"[{n[0]}]({stem}.ipynb)" if stem else n[0]
    def sub(m):
        if m["word"]:
            return m["word"] + m["sep"] + re.sub(r"\d{1,2}[a-z]?", one, m["nums"]) + (m["poss"] or "")
        known = m["stem"] in chapters.values() or m["stem"] == "index"
        return f"[{m[0]}]({m['stem']}.ipynb)" if known else m[0]
    return LINKS.sub(sub, text)


def linkify(md: str, chapters: dict[str, str], api: dict[str, str], page: str) -> str:
    "Chapter references, notebook names and exported names in backticks as links, outside code, math and links."
    out, pos = [], 0
    for m in PROTECT.finditer(md):
        out.append(_link_chapters(md[pos:m.start()], chapters))
        piece = m[0]
        if piece.startswith("`") and not piece.startswith("```"):            # a heading is left as it is
            inner = piece[1:-1]
            nbm = NB_FILE.fullmatch(inner)
            if nbm and (nbm["stem"] in chapters.values() or nbm["stem"] == "index"):
                piece = f"[{piece}]({nbm['stem']}.ipynb)"
            elif inner in api:
                piece = f"[{piece}]({api[inner]})"
        out.append(piece)
        pos = m.end()
    out.append(_link_chapters(md[pos:], chapters))
    return "".join(out)


def foreign_names(nb_path: Path) -> set[str]:
    "Names a notebook imports from outside the package (timm's `VisionTransformer`): not linked to the book's API."
    out = set()
    for c in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]:
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        src = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!")))
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and not (node.module or "").startswith("damcha"):
                out |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                out |= {a.asname or a.name.split(".")[0] for a in node.names if not a.name.startswith("damcha")}
    return out


def slug(heading: str) -> str:
    "The anchor MyST gives a heading (`myst_heading_anchors`): GitHub's rule."
    from myst_parser.mdit_to_docutils.base import default_slugify
    return default_slugify(heading)


def api_targets(processed: dict[str, dict]) -> dict[str, str]:
    "Exported names -> `page.ipynb#anchor` of their show_doc entry; names defined on two pages are left out."
    seen = {}
    for stem, nb in processed.items():
        for c in nb["cells"]:
            if c["cell_type"] != "markdown":
                continue
            for h in re.findall(r"^#{3,4} (\S+)\s*$", c["source"], re.M):
                if h.startswith("__"):                    # markdown reads __x__ as bold: its anchor is not the name
                    continue
                seen.setdefault(h, set()).add(f"{stem}.ipynb#{slug(h)}")
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


IMAGE = re.compile(r"(!\[[^\]]*\]\()([^)\s]+)(\))")


def resolve_images(md: str, src_dir: Path, proc: Path, nb: Path) -> str:
    "Copy each local markdown image into the processed tree; one written relative to the repository root is found."
    def fix(m):
        ref = m[2]
        if re.match(r"^[a-z]+:", ref):
            raise BuildError(f"{nb}: the image {ref} is not a local file (the site loads nothing from other hosts)")
        for base in (src_dir, ROOT):
            f = (base / ref).resolve()
            if f.is_file():
                rel = f.relative_to(ROOT)
                dst = proc / "_files" / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dst)
                return f"{m[1]}_files/{rel.as_posix()}{m[3]}"
        raise BuildError(f"{nb}: the image {ref} is neither in {src_dir} nor in the repository root")
    return IMAGE.sub(fix, md)


LINK = re.compile(r"(?<!!)(\[[^\]]*\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def repo_url() -> str:
    "Where the repository's files are read online: `git_url` and `branch` of settings.ini."
    cfg = configparser.ConfigParser(delimiters=["="])
    cfg.read(ROOT / "settings.ini")
    return f"{cfg['DEFAULT']['git_url']}/blob/{cfg['DEFAULT']['branch']}"


def resolve_repo_links(md: str, src_dir: Path, base_url: str | None = None) -> str:
    "A link to a repository file that is no page (`CONTRIBUTING.md`): to that file on the repository's host."
    def fix(m):
        ref = m[2]
        if re.match(r"^[a-z]+:", ref) or ref.endswith(".ipynb"):
            return m[0]
        for base in (src_dir, ROOT):
            f = (base / ref).resolve()
            if f.is_file() and f.is_relative_to(ROOT):
                return f"{m[1]}{base_url or repo_url()}/{f.relative_to(ROOT).as_posix()}{m[3]}"
        return m[0]                                                # left as it is: Sphinx warns, the build fails
    return LINK.sub(fix, md)


# --- step 4: Sphinx ------------------------------------------------------------------------------------------------

def title(nb: dict, stem: str) -> str:
    "The page's title (its first `# ` heading), with the chapter's number in front, for the sidebar."
    for c in nb["cells"]:
        m = re.search(r"^# (.+)$", c["source"], re.M) if c["cell_type"] == "markdown" else None
        if m:
            num = NB_NAME.match(stem + ".ipynb")
            t = m[1].strip().replace("`", "").replace("<", "&lt;")
            return f"{num['num']}{num['suf']} {t}" if num else t
    raise BuildError(f"{stem}.ipynb: no `# title` heading (Sphinx takes a page's title from it)")


def toctree(entries: list[tuple[str, str]]) -> dict:
    body = "\n".join(f"{t} <{stem}>" for stem, t in entries)
    return {"cell_type": "markdown", "metadata": {},
            "source": f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{body}\n```"}


def build(nbs: Path, proc: Path, out: Path, jobs: int = 1) -> list[str]:
    notebooks = book_order(nbs)
    if not notebooks or notebooks[0].stem != "index":
        raise BuildError(f"{nbs}: no index.ipynb (the first page)")
    chapters = chapter_map(notebooks)
    shutil.rmtree(proc, ignore_errors=True)
    proc.mkdir(parents=True)
    processed = {}
    for p in notebooks:
        try:
            processed[p.stem] = process_notebook(p)
        except BuildError:
            raise
        except Exception as e:
            raise BuildError(f"{p}: could not be processed: {e!r}") from e
    api = api_targets(processed)
    for p in notebooks:
        nb = processed[p.stem]
        foreign = foreign_names(p)
        for c in nb["cells"]:
            if c["cell_type"] == "markdown":
                own_api = {k: v for k, v in api.items() if k not in foreign}
                c["source"] = resolve_images(resolve_repo_links(linkify(c["source"], chapters, own_api, p.stem),
                                                                 nbs), nbs, proc, p)
        if p.stem == "index":
            nb["cells"].append(toctree([(q.stem, title(processed[q.stem], q.stem)) for q in notebooks[1:]]))
        (proc / p.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    html = proc / "_build" / "html"                                # MyST-NB writes beside it: keep both in _proc
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-j", str(jobs), "-c", str(HERE),
           str(proc), str(html)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()
        named = sorted({q.name for q in notebooks if q.stem in msg})
        raise BuildError(f"Sphinx failed (exit {r.returncode}) on {', '.join(named) or 'the site'}:\n{msg[-6000:]}")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html, out)
    missing = [p.name for p in notebooks if not (out / f"{p.stem}.html").is_file()]
    if missing:
        raise BuildError(f"no page for {', '.join(missing)}")
    return [p.stem for p in notebooks]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="_site", help="folder for the website (default: _site)")
    ap.add_argument("--nbs", default="nbs", help="the notebooks (default: nbs)")
    ap.add_argument("--proc", default="_proc", help="folder for the processed notebooks (default: _proc)")
    ap.add_argument("--jobs", type=int, default=1, help="Sphinx worker processes (default: 1)")
    a = ap.parse_args(argv)
    out, nbs, proc = (Path(x) if Path(x).is_absolute() else ROOT / x for x in (a.out, a.nbs, a.proc))
    if not nbs.is_dir():
        ap.error(f"--nbs: no folder {nbs}")
    t0 = time.time()
    try:
        pages = build(nbs, proc, out, a.jobs)
    except BuildError as e:
        print(f"site build FAILED: {e}", file=sys.stderr)
        return 1
    print(f"built {len(pages)} pages into {out} in {time.time() - t0:.0f} s: {', '.join(pages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
