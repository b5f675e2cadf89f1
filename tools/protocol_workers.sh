#!/usr/bin/env bash
# Start (or restart) two one-thread workers on one queue: the ladder (chapter 11f) and the two Fashion-MNIST protocols
# (chapter 11g), taken by tools/queue_worker.py one after another, in that order (QUEUE_ORDER=turns: in turn).
#
# They run from a git worktree pinned at the last protocol commit: the newest commit named in the PROTOCOL files of
# results/ladder, results/fashion-vit and results/fashion-masked (each protocol's commits, made before its runs). Later
# edits of the library cannot change their runs. Finished runs go to each protocol's results.jsonl in this checkout
# (commit them); an interrupted run resumes from its checkpoint under RESULTS/runs/, a link to a folder beside the
# checkout. Run it again after any stop, and at the start of every session.
#
#   tools/protocol_workers.sh            # start two workers
#   tools/protocol_workers.sh status     # what is done, per protocol, and about how many core-hours are left
#                                        # (tools/protocol_status.py: of the runs planned now, and of the whole plan)
#   tools/protocol_workers.sh stop
set -euo pipefail
ROOT="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PROTOCOLS=(ladder fashion-vit fashion-masked)
WT="${PROTOCOL_WORKTREE:-$ROOT/../damcha-protocols}"
CKPT="${PROTOCOL_CHECKPOINTS:-$ROOT/../damcha-protocol-runs}"
PY="${DAMCHA_VENV:-$HOME/.cache/damcha/ci-venv}/bin/python"
SHAKES="${DAMCHA_SHAKESPEARE:-$ROOT/../shared/data/tinyshakespeare}"
FASHION="${DAMCHA_FASHION:-}"                   # empty: Debian's /usr/share/datasets/fashion-mnist
pids() { pgrep -f "damcha-protocol-worker" || true; }
source "$ROOT/tools/workers_lib.sh"

# the last protocol commit: of the commits the PROTOCOL files name, the one every other is an ancestor of
LAST=""
for p in "${PROTOCOLS[@]}"; do
  f="$ROOT/results/$p/PROTOCOL"
  [ -f "$f" ] || { echo "no $f: commit the protocol first"; exit 1; }
  for c in $(awk '!/^#/ && NF {print $1}' "$f"); do
    c="$(git -C "$ROOT" rev-parse --verify --quiet "$c^{commit}")" || { echo "$f names $c, not a commit here"; exit 1; }
    if [ -z "$LAST" ] || git -C "$ROOT" merge-base --is-ancestor "$LAST" "$c"; then LAST="$c"; fi
  done
done
for p in "${PROTOCOLS[@]}"; do
  for c in $(awk '!/^#/ && NF {print $1}' "$ROOT/results/$p/PROTOCOL"); do
    git -C "$ROOT" merge-base --is-ancestor "$c" "$LAST" || { echo "$c ($p) is not an ancestor of $LAST"; exit 1; }
  done
done
ENTRIES=("ladder=$SHAKES=$ROOT/results/ladder" "fashion-vit=$FASHION=$ROOT/results/fashion-vit"
         "fashion-masked=$FASHION=$ROOT/results/fashion-masked")

case "${1:-start}" in
  stop)
    stop_workers; exit 0 ;;
  status)
    echo "protocol commit $LAST; workers: $(pids | wc -l)"
    for e in "${ENTRIES[@]}"; do
      IFS='=' read -r preset data out <<< "$e"
      printf '%s: ' "$preset"
      (cd "$WT" && PYTHONPATH="$WT" "$PY" -c "import damcha.ladder, damcha.fashion
from damcha.cli import main; main()" compare --preset "$preset" ${data:+--ptb "$data"} --out "$out" --dry-run | tail -n 1)
      (cd "$WT" && PYTHONPATH="$WT" "$PY" "$ROOT/tools/protocol_status.py" "$preset" "$data" "$out")
    done
    exit 0 ;;
  start) ;;
  *) echo "usage: $0 [start|status|stop]"; exit 2 ;;
esac

[ -z "$(pids)" ] || { echo "workers already running: $(pids | tr '\n' ' ')"; exit 0; }
make_venv
[ -f "$SHAKES/input.txt" ] || { echo "no Tiny Shakespeare at $SHAKES (set DAMCHA_SHAKESPEARE)"; exit 1; }
if [ -z "$FASHION" ] && [ ! -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
  echo "installing Debian's dataset-fashion-mnist (the Fashion-MNIST protocols' data)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dataset-fashion-mnist > /dev/null
fi
pin_worktree "$LAST"
for p in "${PROTOCOLS[@]}"; do
  mkdir -p "$ROOT/results/$p" "$CKPT/$p"
  [ -e "$ROOT/results/$p/runs" ] || ln -s "$(cd "$CKPT/$p" && pwd)" "$ROOT/results/$p/runs"
done
# The protocols' code is the worktree's (the workers run in it, with it on PYTHONPATH); the queue's order is this
# checkout's tools/queue_worker.py, which decides when a run is trained, never what it computes. One protocol after
# another: a worker takes the first of ENTRIES with a run open, so a protocol finishes before the next one's turn.
start_two damcha-protocol-worker "runpy.run_path('$ROOT/tools/queue_worker.py', run_name='__main__')" \
  "$ROOT/results/worker" --order "${QUEUE_ORDER:-first}" "${ENTRIES[@]}"
echo "protocol commit $LAST (worktree $WT); workers: $(pids | tr '\n' ' ')"
