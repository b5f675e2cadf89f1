"""Render README.md from nbs/index.ipynb (quarto, which nbdev_readme needs, cannot be installed here), and keep the
README's printed results equal to what its first command prints.

    python tools/readme.py                        # write README.md
    python tools/readme.py --check                # exit 1 if README.md differs from what the notebook gives
    python tools/readme.py --first-command        # print the README's first command (its first ```bash block)
    python tools/readme.py --check-quick OUTPUT   # exit 1 unless the tables in OUTPUT (what that command printed)
                                                  # agree with the README's printed tables: exact columns exactly,
                                                  # the others within TOLERANCE
    python tools/readme.py --spread OUT1 OUT2 ... # the largest difference per column between saved outputs of the
                                                  # command (how TOLERANCE was measured)
    python tools/readme.py --refresh-quick        # run that command (without its install step) in a fresh directory,
                                                  # write its tables and wall time into nbs/index.ipynb,
                                                  # render README.md
    python tools/readme.py --refresh-quick OUTPUT # the same from a saved output (the wall time is left as it is)

Markdown cells are copied; code cells become ```python blocks followed by their text output; cells carrying a
`#| hide` directive are left out, `#| echo: false` keeps a cell's output without its code, markdown outputs (tables a
cell computes from committed results) are copied as markdown, and other `#|` directive lines are dropped. Images are
not carried over.

The tables are compared cell by cell, except the `s/run` column (seconds per run: the machine's speed and load). Counts
(seeds, non-finite values, parameters, FLOPs per token) do not depend on the machine and must be equal. The trained
numbers do: the runs are seeded, but a sum split over another number of threads, or computed by another kernel
(PyTorch picks AVX-512, AVX2 or plain kernels by the CPU, `torch.backends.cpu.get_cpu_capability()`), adds in another
order, so losses and accuracies move in their last digits and, in a run as sensitive as DAMCHA's, these differences grow
over training (a DAMCHA recall run's training loss at step 10: 2.8060410 on one thread, 2.8060412 on two). The README's
command pins `--threads 1`; the columns in TOLERANCE are compared within the tolerance given there, measured by running
the command under every kernel path of one machine (`ATEN_CPU_CAPABILITY=avx512`, `avx2`, `default`, MKL restricted to
AVX2, MKL's conditional-numerical-reproducibility mode) and taking twice the largest difference seen (`--spread`)."""
import json, os, platform, re, shlex, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "nbs" / "index.ipynb"
README = ROOT / "README.md"
IGNORED_COLUMNS = ("s/run",)
# the columns of the printed tables the README shows (the README's length is capped; the full tables are in
# runs/compare-quick and chapter 11)
README_COLUMNS = ("config", "val", "test", "metric params (identifiable)", "total params")
# column -> (kind, tolerance): "abs" |printed - README| <= tolerance, "rel" the same divided by |README|; measured: twice
# the largest spread over the kernel paths of one machine (`--spread`, see the module docstring and CONTRIBUTING.md)
TOLERANCE = {"val": ("abs", 0.12), "test": ("abs", 0.11), "val loss": ("abs", 0.5), "grad-norm var": ("rel", 1.25),
             "grad-norm CV": ("abs", 0.25), "max logit": ("rel", 1.35)}
PRINTED = re.compile(r"What it printed here \((?P<head>[^)]*?)(?P<secs>\d+) s on (?P<cores>\d+) cores")


def _src(cell) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def render(nb_path: Path | None = None) -> str:
    nb = json.loads(Path(INDEX if nb_path is None else nb_path).read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        src = _src(cell)
        lines = src.splitlines()
        directives = [l.strip() for l in lines if l.strip().startswith("#|")]
        if any(d.replace(" ", "") in ("#|hide", "#|include:false") for d in directives):
            continue
        if cell["cell_type"] == "markdown":
            parts.append(src.strip())
            continue
        if cell["cell_type"] != "code":
            continue
        code = "\n".join(l for l in lines if not l.strip().startswith("#|")).strip()
        if code and not any(d.replace(" ", "") == "#|echo:false" for d in directives):
            parts.append(f"```python\n{code}\n```")
        texts = []
        for out in cell.get("outputs", []):
            if "data" in out and "text/markdown" in out["data"]:                   # a table a cell computed: as is
                parts.append("".join(out["data"]["text/markdown"]).strip())
            elif out.get("output_type") == "stream":
                texts.append("".join(out["text"]))
            elif "data" in out and "text/plain" in out["data"] and "image/png" not in out["data"]:
                texts.append("".join(out["data"]["text/plain"]) + "\n")
        text = "".join(texts).rstrip()
        if text:
            parts.append(f"```\n{text}\n```")
    return "\n\n".join(parts) + "\n"


def first_command(text: str | None = None) -> str:
    "The README's first ```bash block: the command a newcomer runs first."
    text = README.read_text(encoding="utf-8") if text is None else text
    m = re.search(r"```bash\n(.*?)```", text, re.S)
    if not m:
        raise SystemExit("README.md has no ```bash block")
    return m.group(1).strip()


def tables(text: str) -> dict[str, list[dict]]:
    "Markdown tables under `#### title` or `### title` headings: title -> rows as {column: cell}."
    out, title, header = {}, None, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#"):
            heading = re.match(r"#{3,4} (.+)", line)
            title, header = (heading.group(1) if heading else None), None
            continue
        if not line.startswith("|"):
            if line and header is not None:                                      # prose after a table ends its section
                title, header = None, None
            continue
        if title is None:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            out[title] = []
        elif not set(line) <= set("|-: "):
            out[title].append(dict(zip(header, cells)))
    return out


def printed_section(text: str) -> str:
    "The README's printed results: from 'What it printed here' to the next paragraph that is not a table or heading."
    start = text.index("What it printed here")
    m = re.search(r"\n\n(?![#|])", text[text.index("\n\n", start) + 2:])
    end = text.index("\n\n", start) + 2 + (m.start() if m else len(text))
    return text[start:end]


def differences(printed: dict, readme: dict, ignored=IGNORED_COLUMNS, tolerance=None) -> list[str]:
    "What differs between two sets of tables beyond the tolerances, one line per cell (empty when they agree)."
    tolerance = TOLERANCE if tolerance is None else tolerance
    out = [f"table {t!r}: missing from the output" for t in readme if t not in printed]
    out += [f"table {t!r}: printed but not in the README" for t in printed if t not in readme]
    for t in readme:
        if t not in printed:
            continue
        got = {r["config"]: r for r in printed[t]}
        want = {r["config"]: r for r in readme[t]}
        out += [f"{t} | {c}: row missing from the output" for c in want if c not in got]
        out += [f"{t} | {c}: row printed but not in the README" for c in got if c not in want]
        for c in want:
            if c not in got:
                continue
            for col, v in want[c].items():
                if col not in ignored and not agree(col, got[c].get(col), v, tolerance):
                    bound = f" (tolerance {tolerance[col][0]} {tolerance[col][1]})" if col in tolerance else ""
                    out.append(f"{t} | {c} | {col}: printed {got[c].get(col)!r}, README {v!r}{bound}")
    return out


def _number(cell):
    try:
        return float(str(cell).replace(",", ""))
    except ValueError:
        return None


def agree(col: str, printed, readme, tolerance=None) -> bool:
    "Whether a printed cell agrees with the README's: equal, or numbers within the column's tolerance."
    tolerance = TOLERANCE if tolerance is None else tolerance
    if printed == readme:
        return True
    a, b = _number(printed), _number(readme)
    if col not in tolerance or a is None or b is None:
        return False
    kind, tol = tolerance[col]
    return abs(a - b) <= tol * (abs(b) if kind == "rel" else 1.0)


def spread(outputs: list[str]) -> dict[str, tuple[float, float, str]]:
    "Per column of the tables in `outputs`: (largest absolute difference, largest relative one, where) over every cell."
    runs = [tables(o) for o in outputs]
    out = {}
    for t, rows in runs[0].items():
        for row in rows:
            for col in row:
                vals = [_number(next((r for r in run.get(t, []) if r["config"] == row["config"]), {}).get(col, ""))
                        for run in runs]
                if col in IGNORED_COLUMNS or any(v is None for v in vals):
                    continue
                d = max(vals) - min(vals)
                rel = d / max(abs(min(vals, key=abs)), 1e-12) if d else 0.0
                best = out.get(col, (0.0, 0.0, ""))
                out[col] = (max(best[0], d), max(best[1], rel), f"{t} | {row['config']}" if d > best[0] else best[2])
    return out


def check_quick(output: str) -> list[str]:
    "Differences between the tables in a saved `output` and the README's printed tables."
    readme = tables(printed_section(README.read_text(encoding="utf-8")))
    if not readme:
        return ["README.md: no printed tables after 'What it printed here'"]
    return differences(tables(output), readme)


def _index_cell(nb: dict) -> dict:
    cells = [c for c in nb["cells"] if c["cell_type"] == "markdown" and "What it printed here" in _src(c)]
    if len(cells) != 1:
        raise SystemExit(f"nbs/index.ipynb: expected one markdown cell with 'What it printed here', found {len(cells)}")
    return cells[0]


def readme_columns(table: list[str], keep=README_COLUMNS) -> list[str]:
    "The lines of one markdown table with only the columns in `keep` (in the table's order)."
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table]
    idx = [i for i, c in enumerate(cells[0]) if c in keep]
    rule = "|" + "---|" * len(idx)
    return [rule if set("".join(row)) <= set("-: ") else "| " + " | ".join(row[i] for i in idx) + " |" for row in cells]


def _markdown_tables(output: str) -> str:
    "The tables of a `compare` output as README markdown, README_COLUMNS only: `### title` becomes `#### title`."
    blocks, keep, table = [], False, []
    for line in output.splitlines() + [""]:
        if table and not line.startswith("|"):
            blocks += readme_columns(table)
            table = []
        if line.startswith("### "):
            keep = True
            blocks.append("#" + line)
        elif keep and line.startswith("|"):
            table.append(line)
        elif keep and not line.strip():
            blocks.append(line)
        else:
            keep = False
    return re.sub(r"\n{3,}", "\n\n", "\n".join(blocks).strip())


def refresh_quick(output: str, seconds: float | None = None, cores: int | None = None) -> None:
    "Replace the printed tables (and the wall time) in nbs/index.ipynb with those of `output`; render README.md."
    new_tables = _markdown_tables(output)
    if not tables(new_tables):
        raise SystemExit("the output holds no tables: was the command's output saved whole?")
    nb = json.loads(INDEX.read_text(encoding="utf-8"))
    cell = _index_cell(nb)
    src = _src(cell)
    section = printed_section(src)
    intro, old_tables = section.split("\n\n", 1)
    if seconds is not None:
        intro = PRINTED.sub(
            lambda m: f"What it printed here ({m['head']}{seconds:.0f} s on {cores or m['cores']} cores", intro)
    src = src.replace(section, intro + "\n\n" + new_tables)
    lines = src.split("\n")
    cell["source"] = [l + "\n" for l in lines[:-1]] + [lines[-1]]
    INDEX.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    README.write_text(render(), encoding="utf-8")


def run_quick() -> tuple[str, float]:
    "Run the README's first command after its `pip install` step in an empty directory: (stdout, seconds)."
    cmd = first_command().split(" && ")[-1]
    args = shlex.split(cmd)
    exe = Path(sys.executable).parent / args[0]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.time()
        r = subprocess.run([str(exe), *args[1:]], cwd=tmp, capture_output=True, text=True)
        seconds = time.time() - t0
    if r.returncode != 0:
        raise SystemExit(f"`{cmd}` failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return r.stdout, seconds


def main(argv: list[str]) -> int:
    if "--first-command" in argv:
        print(first_command())
        return 0
    if "--check-quick" in argv:
        path = argv[argv.index("--check-quick") + 1]
        diff = check_quick(Path(path).read_text(encoding="utf-8"))
        if diff:
            print("\n".join(diff), file=sys.stderr)
            print(f"the README's printed tables differ from what `{first_command()}` printed ({len(diff)} cells; this "
                  f"machine: {os.cpu_count()} cores, {platform.machine()}): run `python tools/readme.py --refresh-quick` "
                  "and commit", file=sys.stderr)
            return 1
        print(f"the README's printed tables agree with the command's output (counts exactly; "
              + ", ".join(f"{c} within {k} {v}" for c, (k, v) in TOLERANCE.items())
              + f"; {', '.join(IGNORED_COLUMNS)} not compared)")
        return 0
    if "--spread" in argv:
        paths = argv[argv.index("--spread") + 1:]
        if len(paths) < 2:
            raise SystemExit("--spread needs two or more saved outputs of the README's first command")
        for col, (d, rel, where) in spread([Path(p).read_text(encoding="utf-8") for p in paths]).items():
            print(f"{col}: largest difference {d:.4g} (relative {rel:.3g}), at {where or '-'}")
        return 0
    if "--refresh-quick" in argv:
        rest = argv[argv.index("--refresh-quick") + 1:]
        if rest:
            refresh_quick(Path(rest[0]).read_text(encoding="utf-8"))
        else:
            out, seconds = run_quick()
            refresh_quick(out, seconds, os.cpu_count())
        print("updated nbs/index.ipynb and README.md")
        return 0
    want = render()
    if "--check" in argv:
        if not README.exists() or README.read_text(encoding="utf-8") != want:
            print("README.md is out of date with nbs/index.ipynb: run `python tools/readme.py`", file=sys.stderr)
            return 1
        return 0
    README.write_text(want, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
