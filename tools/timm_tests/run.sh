#!/usr/bin/env bash
# timm's own model tests for the book's timm models: download the source distribution of the timm that settings.ini
# pins (dev_requirements, timm==X), take its tests/, sort damcha_vit_* into timm's model lists as timm sorts its vit_*
# (classify.py), and run `pytest tests/test_models.py -k damcha` (the markers timm's CI runs) against the installed timm
# and damcha. Every collected test must pass; none collected fails too (pytest exits 5).
# Usage: tools/timm_tests/run.sh [extra pytest arguments, e.g. -k "damcha and not base": the last -k wins];
# TIMM_TESTS_DIR=DIR keeps the download and the tests in DIR.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

PIN="$(python - "$ROOT/settings.ini" <<'PY'
import configparser, re, sys
cfg = configparser.ConfigParser(delimiters=["="])
cfg.read(sys.argv[1])
pins = [r for r in cfg["DEFAULT"]["dev_requirements"].split() if re.fullmatch(r"timm==[\w.]+", r)]
if len(pins) != 1:
    sys.exit("settings.ini: dev_requirements must pin timm exactly once (timm==X)")
print(pins[0].split("==")[1])
PY
)"
INSTALLED="$(python -c 'import timm; print(timm.__version__)')"
if [ "$INSTALLED" != "$PIN" ]; then
  echo "timm $INSTALLED is installed, settings.ini pins timm==$PIN: pip install -e '.[dev]'"
  exit 1
fi

# shellcheck source=tools/sdist.sh
source "$(dirname "$0")/../sdist.sh"
sdist_into timm "$PIN" "${TIMM_TESTS_DIR:-}"
SRC="$WORK/timm-$PIN"
rm -rf "$SRC"
# the tests and pytest's settings (markers) only: without the sdist's timm/ package, the tests import the installed timm
tar -xzf "$SDIST" -C "$WORK" "timm-$PIN/tests" "timm-$PIN/pyproject.toml"
cp "$HERE/conftest.py" "$SRC/conftest.py"
cp "$SRC/tests/test_models.py" "$SRC/tests/test_models.py.orig"
python "$HERE/classify.py" "$SRC/tests/test_models.py"
diff -u "$SRC/tests/test_models.py.orig" "$SRC/tests/test_models.py" || true

# the tests timm's own CI runs: those with one of the markers its pyproject.toml declares (the unmarked ones are the
# pretrained-weight downloads and test_prune_intermediate_layers_contract, "slow ... excluded from CI for now")
MARKERS="$(python - "$SRC/pyproject.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    markers = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
print(" or ".join(m.split(":")[0].strip() for m in markers))
PY
)"
cd "$SRC"
echo "timm $PIN's tests/test_models.py -k damcha -m '$MARKERS', against $(python -c 'import timm; print(timm.__file__)')"
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" python -m pytest tests/test_models.py -k damcha -m "$MARKERS" -p no:cacheprovider \
  -p no:nbval -W ignore::pytest.PytestUnknownMarkWarning -q -rfEs --durations=5 "$@"
