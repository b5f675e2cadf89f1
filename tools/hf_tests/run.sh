#!/usr/bin/env bash
# transformers' own model tests for DamchaForCausalLM: download the source distribution of the transformers that
# settings.ini pins (dev_requirements, transformers>=X: the installed version must be one it allows), assemble its
# tests/ with the project's tools/hf_tests/test_modeling_damcha.py (prepare.py), and run that module with pytest
# against the installed transformers and damcha. Every collected test must pass or be skipped; a failed test (or
# subtest), or none collected (pytest exits 5), fails the script.
# Without HF_TESTS_GIT_DIR the source distribution's ModelTesterMixin and ConfigTester run (GenerationTesterMixin and
# ExportTesterMixin are stubs: the distribution does not ship them). With HF_TESTS_GIT_DIR=a transformers snapshot's
# git directory and HF_TESTS_COMMIT=its commit, the generation tests and GPT-2's module come from it, and
# HF_TESTS_GPT2=1 runs GPT-2's module too, as the control.
# Usage: tools/hf_tests/run.sh [extra pytest arguments]; HF_TESTS_DIR=DIR keeps the download and the tree in DIR;
# HF_TESTS_OUTCOMES=FILE writes every test's outcome there (JSON).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

VERSION="$(python -c 'import transformers; print(transformers.__version__)')"
python - "$ROOT/settings.ini" "$VERSION" <<'PY'
import configparser, re, sys
cfg = configparser.ConfigParser(delimiters=["="])
cfg.read(sys.argv[1])
pins = [r for r in cfg["DEFAULT"]["dev_requirements"].split() if re.match(r"transformers[<>=]", r)]
if len(pins) != 1:
    sys.exit("settings.ini: dev_requirements must name transformers exactly once")
from packaging.specifiers import SpecifierSet
if sys.argv[2] not in SpecifierSet(pins[0].removeprefix("transformers")):
    sys.exit(f"transformers {sys.argv[2]} is installed, settings.ini wants {pins[0]}: pip install -e '.[dev]'")
PY

if ! python -c "import parameterized, xdist" 2>/dev/null; then
  echo "transformers' common tests import parameterized and pytest-xdist: pip install parameterized pytest-xdist"
  exit 1
fi

# shellcheck source=tools/sdist.sh
source "$(dirname "$0")/../sdist.sh"
sdist_into transformers "$VERSION" "${HF_TESTS_DIR:-}"
TREE="$WORK/tree"
SNAP=()
if [ -n "${HF_TESTS_GIT_DIR:-}" ]; then
  SNAP=(--git-dir "$HF_TESTS_GIT_DIR" --commit "${HF_TESTS_COMMIT:?HF_TESTS_COMMIT names the commit}")
fi
python "$HERE/prepare.py" "$SDIST" "$TREE" "${SNAP[@]}"
MODULES=(tests/models/damcha/test_modeling_damcha.py)
if [ "${HF_TESTS_GPT2:-0}" = 1 ]; then
  MODULES+=(tests/models/gpt2/test_modeling_gpt2.py::GPT2ModelTest)
fi
cd "$TREE"
echo "transformers $VERSION's tests (${SNAP[*]:-source distribution only}) on ${MODULES[*]}"
echo "damcha from $(python -c 'import damcha; print(damcha.__file__)')"
export RUN_FSDP_TESTS=0 RUN_TENSOR_PARALLEL_TESTS=0 RUN_EXPERT_PARALLEL_TESTS=0 HF_HUB_OFFLINE=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" TRANSFORMERS_VERBOSITY=error
DAMCHA_HF_OUTCOMES="${HF_TESTS_OUTCOMES:-$WORK/outcomes.json}" python -m pytest "${MODULES[@]}" -p no:cacheprovider \
  -p no:nbval -W ignore::pytest.PytestUnknownMarkWarning -q -rfE --durations=5 "$@"
