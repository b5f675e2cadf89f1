"""What does not belong in a chapter: the package as installed, its notebooks, its README and its CI script."""
import configparser, json, re, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG, NBS = ROOT / "damcha", ROOT / "nbs"
DEV_TOOLS = ["nbdev", "fastcore", "execnb", "fastgit", "IPython", "ipykernel", "jupyter", "jupyter_core", "nbformat", "nbval", "pytest"]


def modules():
    "Exported modules as dotted names under the package (`integrations.timm` for damcha/integrations/timm.py)."
    return sorted(".".join(p.relative_to(PKG).with_suffix("").parts) for p in PKG.rglob("*.py")
                  if p.stem not in ("__init__", "_modidx") and "__pycache__" not in p.parts)


def module_file(m: str) -> Path:
    return PKG.joinpath(*m.split(".")).with_suffix(".py")


def notebook_exports():
    "module name -> notebook file, from each notebook's `#| default_exp` line."
    out = {}
    for nb in sorted(NBS.glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            m = re.search(r"^#\|\s*default_exp\s+(\S+)", "".join(cell["source"]), re.M)
            if m:
                assert m.group(1) not in out, f"two notebooks export {m.group(1)}: {out[m.group(1)]} and {nb.name}"
                out[m.group(1)] = nb.name
    return out


def test_package_imports_without_dev_tools():
    "Every module imports with nbdev, fastcore, jupyter and the test tools made unimportable."
    code = f"""
import sys, importlib.abc
BLOCKED = {DEV_TOOLS!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED: raise ImportError('blocked dev tool: ' + name)
sys.meta_path.insert(0, Block())
for name in list(sys.modules):
    if name.split('.')[0] in BLOCKED: del sys.modules[name]
import importlib
for m in {modules()!r}: importlib.import_module('damcha.' + m)
import damcha.attention, torch
y = damcha.attention.DamchaAttention(16, 4)(torch.randn(2, 5, 16), causal=True)
assert y.shape == (2, 5, 16)
print('ok')
"""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_blocker_can_fail():
    "The import check above would notice a module that needs a dev tool."
    code = "import sys, importlib.abc\nclass B(importlib.abc.MetaPathFinder):\n def find_spec(self, n, p=None, t=None):\n  if n.split('.')[0]=='fastcore': raise ImportError(n)\nsys.meta_path.insert(0, B())\nimport fastcore.test"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode != 0


def test_every_module_has_a_notebook_and_back():
    exports = notebook_exports()
    assert modules(), "no exported modules found"
    for m in modules():
        assert m in exports, f"damcha/{m}.py has no source notebook (no `#| default_exp {m}` in nbs/)"
        header = module_file(m).read_text(encoding="utf-8")
        assert f"File to edit: {'../' * m.count('.')}../nbs/{exports[m]}" in header, \
            f"damcha/{m}.py does not say it is exported from {exports[m]}"
    for m, nb in exports.items():
        assert module_file(m).exists(), f"{nb} exports {m} but {module_file(m).relative_to(ROOT)} is missing: run nbdev_export"
    numbers = [nb.split("_")[0] for nb in exports.values()]
    assert len(numbers) == len(set(numbers)), f"chapter numbers must be unique: {sorted(exports.values())}"


def test_runtime_requirements_stay_small():
    cfg = configparser.ConfigParser(delimiters=["="]); cfg.read(ROOT / "settings.ini")
    reqs = {re.split(r"[<>=!~ ]", r)[0] for r in cfg["DEFAULT"]["requirements"].split()}
    assert reqs <= {"torch", "einops", "numpy", "matplotlib", "tqdm", "scikit-learn", "torchvision"}, reqs
    assert {"numpy", "matplotlib", "tqdm", "scikit-learn"} <= reqs, "the README's main command needs them at run time"
    dev = cfg["DEFAULT"]["dev_requirements"].split()
    for pin in ["nbdev==2.4.14", "fastcore<2", "execnb<0.2", "fastgit<0.1"]: assert pin in dev


def _readme_module():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import readme
        return readme
    finally:
        sys.path.pop(0)


def test_readme_is_generated_from_index():
    assert (ROOT / "README.md").read_text(encoding="utf-8") == _readme_module().render(NBS / "index.ipynb"), \
        "README.md differs from nbs/index.ipynb: run `python tools/readme.py`"


def readme_commands():
    "The two ```bash blocks of the README's 'Two commands' section: (demonstration, tests)."
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    cmds = [b.strip() for b in re.findall(r"```bash\n(.*?)```", section, re.S)]
    assert len(cmds) == 2, f"expected two commands in the README, found {len(cmds)}"
    return cmds


README_WORDS = 1500                                          # issue 46: the front page stays a page or two


def readme_words(text: str) -> int:
    "Words as `wc -w` counts them: runs of characters between whitespace (a table's `|` counts as a word)."
    return len(text.split())


def test_readme_is_short():
    "README.md holds at most README_WORDS words by `wc -w`; the count is the one wc gives (checked on made-up text)."
    assert readme_words("| a | b |\n\nOne two.\t`x`") == 8
    n = readme_words((ROOT / "README.md").read_text(encoding="utf-8"))
    assert n <= README_WORDS, f"README.md has {n} words (wc -w); at most {README_WORDS}: move detail into a chapter"


def test_ci_runs_the_readme_test_command():
    demo, tests = readme_commands()
    assert demo.startswith("pip install") and tests.startswith("pip install -e '.[dev]'")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in [l.strip() for l in ci.splitlines()], ".ci/run must run the README's test command verbatim"
    assert "set -euo pipefail" in ci


def test_ci_stops_when_any_step_of_the_test_command_fails():
    "Under `set -e` a failure before a list's last `&&` goes on; .ci/run's wrapping must stop there, and only there."
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = ci.splitlines()
    i = [l.strip() for l in lines].index(tests)
    block = "\n".join(lines[i - 1:i + 2])                         # the command with the lines around it
    for first, stops in (("false", True), ("true", False)):       # its first step fails, or every step passes
        steps = " && ".join([first, "true", "true"])
        script = "set -euo pipefail\n" + block.replace(tests, steps) + "\necho reached\n"
        run = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        assert (run.returncode != 0, "reached" not in run.stdout) == (stops, stops), (first, block, run)


def test_readme_main_job_runs(tmp_path):
    "The README's main job after its install step (the package is installed in this environment), in a fresh directory."
    demo, _ = readme_commands()
    install, run = demo.split(" && ", 1)
    assert install.strip() == "pip install -e ."
    assert run.split()[0] == "damcha"
    exe = Path(sys.executable).parent / "damcha"
    r = subprocess.run([str(exe), *run.split()[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "runs" / "compare-quick"
    results = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 8 and all(r["failure"] is None for r in results)
    assert "| mha |" in r.stdout and (out / "summary.md").exists() and (out / "curves.png").exists()


def test_committed_results_name_no_absolute_path():
    "Recorded settings are repo-relative (experiments._portable): no committed result names this machine's directories."
    roots = {str(ROOT.parent), str(Path.home())}
    for p in sorted((ROOT / "results").rglob("*")):
        if p.suffix in (".jsonl", ".json", ".md", ".csv"):
            text = p.read_text(encoding="utf-8")
            assert not any(r in text for r in roots), f"{p.relative_to(ROOT)} holds an absolute path"
    recorded = sorted((ROOT / "results").glob("*/results.jsonl"))
    assert recorded
    for path in recorded:
        for line in path.read_text(encoding="utf-8").splitlines():
            data = json.loads(line)["settings"].get("data")
            assert data is None or not Path(data).is_absolute(), (path, data)


def test_ci_runs_the_readme_first_command_in_a_fresh_environment():
    "CI takes the README's first command from the README itself and compares what it prints with the README's table."
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = _readme_module()
    assert readme.first_command() == readme_commands()[0]
    for piece in ['FIRST="$(python tools/readme.py --first-command)"', 'python3 -m venv "$FRESH/venv"',
                  'bash -c "$FIRST"', 'python tools/readme.py --check-quick "$FRESH/printed.txt"']:
        assert piece in ci, piece
    assert "--threads" in readme.first_command(), "the README's command pins its thread count (see tools/readme.py)"


def test_readme_table_check_can_fail(tmp_path, monkeypatch):
    "--check-quick accepts the README's own tables, names a changed cell, ignores s/run; --refresh-quick writes them."
    readme = _readme_module()
    printed = readme.printed_section(readme.README.read_text(encoding="utf-8")).replace("#### ", "### ")
    assert readme.check_quick(printed) == []
    head = next(l for l in printed.splitlines() if l.startswith("| config |"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    row = next(l for l in printed.splitlines() if l.startswith("| mha |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    cells[cols.index("val")] = "0.0001"
    changed = printed.replace(row, "| " + " | ".join(cells) + " |", 1)
    diff = readme.check_quick(changed)
    assert len(diff) == 1 and "| mha | val: printed '0.0001'" in diff[0], diff
    assert "s/run" not in cols and "s/run" in readme.IGNORED_COLUMNS                 # seconds: neither shown nor compared
    assert len(cols) <= 8 and set(cols) <= set(readme.README_COLUMNS)              # the README shows at most 8 columns
    index, out = tmp_path / "index.ipynb", tmp_path / "README.md"
    index.write_text(readme.INDEX.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(readme, "INDEX", index)
    monkeypatch.setattr(readme, "README", out)
    readme.refresh_quick(changed + "\nresults: runs/compare-quick/results.jsonl\n", seconds=95.4, cores=2)
    assert "one thread, 95 s on 2 cores" in out.read_text(encoding="utf-8")
    assert readme.check_quick(changed) == []                                      # the README written from the copy


def test_readme_tables_computed_from_committed_results(monkeypatch):
    "The README's tables that index.ipynb computes from committed results (`#| echo: false` cells) are what they give now."
    monkeypatch.chdir(NBS)
    nb = json.loads((NBS / "index.ipynb").read_text(encoding="utf-8"))
    ns, checked = {}, 0
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] != "code" or "#| echo: false" not in src:
            continue
        body, last = src.rstrip().rsplit("\n", 1)
        exec(body, ns)
        got = eval(last, ns).data
        want = [o for o in cell["outputs"] if "text/markdown" in o.get("data", {})]
        assert want, "a computed table has no committed output: execute nbs/index.ipynb"
        assert "".join(want[0]["data"]["text/markdown"]).strip() == got.strip(), \
            "a README table is stale against results/: execute nbs/index.ipynb, then python tools/readme.py"
        checked += 1
    assert checked == sum("#| echo: false" in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def _style_problems(path: Path) -> list[str]:
    "Lines over 120 characters (nbdev's generated `__all__` aside) and lines holding more than one statement."
    import ast
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    generated = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            generated |= set(range(node.lineno, node.end_lineno + 1))
    out = [f"{path.name}:{i} is {len(l)} characters" for i, l in enumerate(src.splitlines(), 1)
           if len(l) > 120 and i not in generated]
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With)) and node.body[0].lineno == node.lineno:
            out.append(f"{path.name}:{node.lineno} puts a block's body on its header line")
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                out += [f"{path.name}:{b.lineno} holds two statements" for a, b in zip(stmts, stmts[1:])
                        if isinstance(a, ast.stmt) and isinstance(b, ast.stmt) and b.lineno == a.end_lineno]
    return out


def test_library_code_style():
    "Library lines stay within 120 characters and hold one statement each."
    files = [p for p in sorted(PKG.rglob("*.py")) if p.name != "_modidx.py"]
    assert len(files) > 10
    problems = [p for f in files for p in _style_problems(f)]
    assert not problems, "\n".join(problems[:20])


def test_code_style_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("if True: x = 1\ny = 2; z = 3\n" + "w = '" + "a" * 130 + "'\n", encoding="utf-8")
    assert len(_style_problems(bad)) == 3
