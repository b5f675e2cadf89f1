# Sourced by tools/timm_tests/run.sh and tools/hf_tests/run.sh: a package's source distribution from the registry.
#   sdist_into NAME VERSION [DIR]
# sets WORK (DIR, kept; or a new temporary folder, deleted on exit) and SDIST (the .tar.gz inside it, downloaded once).
sdist_into() {
  WORK="${3:-}"
  if [ -z "$WORK" ]; then
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/damcha-$1-tests.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
  fi
  mkdir -p "$WORK"
  SDIST="$WORK/$1-$2.tar.gz"
  if [ ! -f "$SDIST" ]; then
    python -m pip download -q --no-deps --no-binary :all: "$1==$2" -d "$WORK" 2> >(grep -v "is ignored" >&2)
  fi
}
