#!/usr/bin/env bash
# Start (or restart) the deciding protocol's two one-thread workers (chapter 11d).
#
# They run from a git worktree pinned at the protocol's commit, the last one listed in results/decide/PROTOCOL (the
# protocol and its amendments, each committed before the runs it governs), so later edits of the library cannot change
# the protocol's runs. Both share results/decide/ of this checkout: finished runs
# go to results/decide/results.jsonl (commit it), an interrupted run resumes from its checkpoint under
# results/decide/runs/ (a link to a folder beside the checkout, not committed). Run it again after any stop.
# On a fresh machine it first makes the venv it runs from ($DAMCHA_VENV, default ~/.cache/damcha/ci-venv).
#
#   tools/decide_workers.sh            # start two workers
#   tools/decide_workers.sh status     # what runs, what is done, the core-hours left
#   tools/decide_workers.sh stop
set -euo pipefail
ROOT="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PROTOCOL="$(awk '!/^#/ && NF {c = $1} END {print c}' "$ROOT/results/decide/PROTOCOL" 2>/dev/null)"
PROTOCOL="$(git -C "$ROOT" rev-parse --verify --quiet "${PROTOCOL:-none}^{commit}")" \
  || { echo "results/decide/PROTOCOL names no commit of this repository: commit the protocol first"; exit 1; }
WT="${DECIDE_WORKTREE:-$ROOT/../damcha-decide-protocol}"
CKPT="${DECIDE_CHECKPOINTS:-$ROOT/../damcha-decide-runs}"
OUT="$ROOT/results/decide"
PY="${DAMCHA_VENV:-$HOME/.cache/damcha/ci-venv}/bin/python"
DATA="${DAMCHA_SHAKESPEARE:-$ROOT/../shared/data/tinyshakespeare}"
pids() { pgrep -f "damcha-decide-worker" || true; }
source "$ROOT/tools/workers_lib.sh"

case "${1:-start}" in
  stop)
    stop_workers; exit 0 ;;
  status)
    echo "protocol commit $PROTOCOL; workers: $(pids | wc -l)"
    cd "$WT" && PYTHONPATH="$WT" "$PY" -m damcha.cli compare --preset decide --ptb "$DATA" --out "$OUT" --dry-run \
      | tail -n 1
    # the stages and the core-hours left, read by this checkout's chapter 11d from what has finished
    cd "$ROOT" && PYTHONPATH="$ROOT" "$PY" -c "import sys; from damcha.decide import decide_status, status_table
from damcha.runs import read_metrics
print(status_table(decide_status(read_metrics(sys.argv[1]), sys.argv[2])))" "$OUT/results.jsonl" "$DATA"
    exit 0 ;;
  start) ;;
  *) echo "usage: $0 [start|status|stop]"; exit 2 ;;
esac

[ -z "$(pids)" ] || { echo "workers already running: $(pids | tr '\n' ' ')"; exit 0; }
make_venv
[ -f "$DATA/input.txt" ] || { echo "no Tiny Shakespeare at $DATA (set DAMCHA_SHAKESPEARE)"; exit 1; }
pin_worktree "$PROTOCOL"
mkdir -p "$OUT" "$CKPT"
[ -e "$OUT/runs" ] || ln -s "$(cd "$CKPT" && pwd)" "$OUT/runs"
start_two damcha-decide-worker "from damcha.cli import main; sys.exit(main())" "$OUT/worker" \
  compare --preset decide --ptb "$DATA" --out "$OUT" --threads 1
echo "protocol commit $PROTOCOL (worktree $WT); workers: $(pids | tr '\n' ' ')"
