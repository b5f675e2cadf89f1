# Shared by tools/decide_workers.sh and tools/protocol_workers.sh, which source it after setting ROOT, PY, WT and a
# function `pids` that lists their workers' process ids. Not run on its own.

stop_workers() {  # TERM every worker (a background worker of a non-interactive shell ignores SIGINT); wait 30 s at most
  for p in $(pids); do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 30); do [ -z "$(pids)" ] && break; sleep 1; done
  [ -z "$(pids)" ] || { echo "workers still running after 30 s: $(pids | tr '\n' ' ')"; exit 1; }
  echo "stopped the workers (they keep their checkpoints)"
}

make_venv() {  # a fresh machine: the workers need the runtime requirements only
  if [ ! -x "$PY" ]; then
    echo "no Python at $PY: making a venv with damcha's runtime requirements (a few minutes)"
    python3 -m venv "$(dirname "$(dirname "$PY")")" && "$PY" -m pip install -q -e "$ROOT"
  fi
}

pin_worktree() {  # pin_worktree COMMIT: $WT checked out at COMMIT (an amendment moves it), with no local change
  local commit=$1
  git -C "$ROOT" worktree prune
  if [ ! -d "$WT" ]; then
    git -C "$ROOT" worktree add --detach "$WT" "$commit" > /dev/null
  elif [ "$(git -C "$WT" rev-parse HEAD)" != "$commit" ] && [ -z "$(git -C "$WT" status --porcelain)" ]; then
    git -C "$WT" checkout -q --detach "$commit"
  fi
  [ "$(git -C "$WT" rev-parse HEAD)" = "$commit" ] || { echo "$WT is not at the protocol commit $commit"; exit 1; }
  [ -z "$(git -C "$WT" status --porcelain)" ] || { echo "$WT has local changes: the protocol's code must be as committed"; exit 1; }
}

start_two() {  # start_two NAME CODE LOG ARGS...: two one-thread workers running `python -c CODE ARGS` in $WT
  local name=$1 code=$2 log=$3
  shift 3
  local idle=()                                 # SCHED_IDLE: CPU time nothing else wants (CI, a reader's notebooks)
  if command -v chrt > /dev/null; then idle=(chrt --idle 0); fi
  for i in 1 2; do
    # the worker's name in its command line lets `stop` and `status` find it
    (cd "$WT" && PYTHONPATH="$WT" OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nohup "${idle[@]}" "$PY" -c \
       "import runpy, sys; sys.argv = ['$name', *sys.argv[1:]]; $code" "$@" >> "$log$i.log" 2>&1 &)
    sleep 5                                     # the first claims its run before the second looks
  done
  sleep 2
}
