"""Assemble the transformers test tree that tools/hf_tests/run.sh runs: the pinned source distribution's tests/ and,
when a snapshot of a transformers repository is given, its generation tests and GPT-2's test module (the control).

The source distribution ships tests/test_modeling_common.py (ModelTesterMixin) and tests/test_configuration_common.py
(ConfigTester) but not the modules they import: tests/generation/test_utils.py (GenerationTesterMixin),
tests/exporters/test_export.py (ExportTesterMixin) and tests/utils/test_configuration_utils.py (config_common_kwargs).
Without a snapshot these are stubs (empty mixins, no common kwargs), so only the common model and config tests run.
With one (--git-dir, --commit), they come from the snapshot, adapted in this temporary copy only:
- tests/generation/test_utils.py: `past_key_values` renamed `cache` (transformers 5.24's name for the cache);
- tests/causal_lm_tester.py: `_TEXT_MODEL_TESTER_DEFAULTS`, absent from 5.24's testing_utils, defined from the
  snapshot's src/transformers/testing_utils.py;
- tests/utils/test_configuration_utils.py: only its `config_common_kwargs` (the rest needs the hub).
The project's test module goes to tests/models/damcha/test_modeling_damcha.py.
Usage: python prepare.py SDIST OUT [--git-dir DIR --commit SHA]
"""
import argparse, re, shutil, subprocess, sys, tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STUBS = {
    "tests/generation/test_utils.py": "class GenerationTesterMixin:  # stub: the source distribution has no generation tests\n"
                                      "    pass\n",
    "tests/exporters/test_export.py": "class ExportTesterMixin:  # stub: the source distribution has no export tests\n"
                                      "    pass\n",
    "tests/utils/test_configuration_utils.py": "config_common_kwargs = {}  # stub: not in the source distribution\n",
}

def show(git_dir, commit, path):
    r = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"prepare.py: {path} not in {git_dir} at {commit}: {r.stderr.strip()}")
    return r.stdout

def write(out, rel, text):
    p = out / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sdist"); ap.add_argument("out")
    ap.add_argument("--git-dir"); ap.add_argument("--commit")
    a = ap.parse_args()
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tarfile.open(a.sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        members = [m for m in tar.getmembers() if m.name.startswith(f"{top}/tests/") or m.name == f"{top}/pyproject.toml"]
        tar.extractall(out, members=members, filter="data")
    for p in (out / top).iterdir():
        p.rename(out / p.name)
    (out / top).rmdir()
    for must in ("tests/test_modeling_common.py", "tests/test_configuration_common.py"):
        if not (out / must).is_file():
            sys.exit(f"prepare.py: {a.sdist} has no {must}")
    for d in ("tests", "tests/generation", "tests/exporters", "tests/utils", "tests/models", "tests/models/damcha"):
        (out / d).mkdir(parents=True, exist_ok=True)
        (out / d / "__init__.py").touch()
    # imported by the source distribution's FSDP / tensor-parallel mixins, shipped by neither source: those tests are
    # off (RUN_FSDP_TESTS=0 RUN_TENSOR_PARALLEL_TESTS=0 RUN_EXPERT_PARALLEL_TESTS=0), so the names only need to exist
    if not (out / "tests/distributed_testing_utils.py").exists():
        names = ["run_distributed", "_get_distributed_backend", "_get_distributed_device_type", "_get_rank_device",
                 "_set_rank_device", "_start_rank_processes"]
        write(out, "tests/distributed_testing_utils.py", "def _off(*a, **k):\n    raise RuntimeError('distributed tests are "
              "off here')\n\n" + "".join(f"{n} = _off\n" for n in names))
    if a.git_dir:
        g, c = a.git_dir, a.commit
        s = show(g, c, "tests/generation/test_utils.py")
        write(out, "tests/generation/test_utils.py", s.replace("past_key_values", "cache"))
        for rel in ("tests/utils/tiny_model_summary.json", "tests/exporters/test_export.py", "tests/exporters/test_utils.py",
                    "tests/models/gpt2/__init__.py", "tests/models/gpt2/test_modeling_gpt2.py"):
            write(out, rel, show(g, c, rel))
        tu = show(g, c, "src/transformers/testing_utils.py")
        defaults = re.search(r"^_TEXT_MODEL_TESTER_DEFAULTS = \{.*?^\}\n", tu, re.S | re.M).group(0)
        lm = show(g, c, "tests/causal_lm_tester.py").replace("    _TEXT_MODEL_TESTER_DEFAULTS,\n", "", 1)
        anchor = "from .test_configuration_common import ConfigTester\n"
        write(out, "tests/causal_lm_tester.py", lm.replace(anchor, defaults + "\n" + anchor, 1))
        cu = show(g, c, "tests/utils/test_configuration_utils.py")
        kw = re.search(r"^config_common_kwargs = \{.*?^\}\n", cu, re.S | re.M).group(0)
        write(out, "tests/utils/test_configuration_utils.py", kw)
    else:
        write(out, "tests/utils/tiny_model_summary.json", "{}\n")          # the pipeline tests' model list
        for rel, text in STUBS.items():
            write(out, rel, text)
    # test_pipeline_mixin.py imports transformers from ../src/transformers: the installed package (tests run against it)
    import transformers
    (out / "src").mkdir()
    (out / "src/transformers").symlink_to(Path(transformers.__file__).parent)
    shutil.copy(HERE / "test_modeling_damcha.py", out / "tests/models/damcha/test_modeling_damcha.py")
    shutil.copy(HERE / "conftest.py", out / "conftest.py")

if __name__ == "__main__":
    main()
