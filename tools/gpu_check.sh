#!/usr/bin/env bash
# Every check that needs a CUDA GPU, in one go, for whenever a GPU machine is at hand:
#   1. the notebooks' `#| gpu` cells (nbdev_test --flags gpu, one notebook at a time: bf16 autocast training,
#      NCCL two-process DDP when two GPUs exist, the CUDA benchmark cell);
#   2. `damcha bench --device cuda --dtype bfloat16 --quick`.
# Usage, from anywhere, in an environment where damcha and its dev extras are installed (pip install -e '.[dev]'):
#   tools/gpu_check.sh [OUT_DIR]        # logs and the bench files go to OUT_DIR (default: $OUT, else runs/gpu-check)
# Exit status: 0 when every step passed, 1 when one failed (the others still run), 2 when there is no CUDA device.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out="${1:-${OUT:-runs/gpu-check}}"
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"

python - <<'PY' || exit 2
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("gpu_check: no CUDA device here (torch.cuda.is_available() is False); nothing to check")
names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
print(f"gpu_check: torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.device_count()} GPU(s): {names}")
PY

status=0
notebooks=$(grep -l '"#| gpu' nbs/*.ipynb)
for nb in $notebooks; do
    echo "gpu_check: nbdev_test --flags gpu --path $nb"
    if ! nbdev_test --flags gpu --path "$nb" 2>&1 | tee -a "$out/nbdev_test.log"; then
        echo "gpu_check: FAILED: $nb (log: $out/nbdev_test.log)"
        status=1
    fi
done

echo "gpu_check: damcha bench --device cuda --dtype bfloat16 --quick --out $out/bench"
if command -v damcha > /dev/null; then
    bench=(damcha)
else
    bench=(python -c "import sys; from damcha.cli import main; sys.exit(main(sys.argv[1:]))")
fi
if ! "${bench[@]}" bench --device cuda --dtype bfloat16 --quick --out "$out/bench" 2>&1 | tee "$out/bench.log"; then
    echo "gpu_check: FAILED: damcha bench (log: $out/bench.log)"
    status=1
fi

if [ "$status" -eq 0 ]; then
    echo "gpu_check: all passed; logs in $out"
fi
exit "$status"
