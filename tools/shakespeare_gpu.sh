#!/usr/bin/env bash
# nanoGPT's GPU character recipe (config/train_shakespeare_char.py: 6 layers, 6 heads, width 384, context 256, batch 64,
# 5,000 iterations, lr 1e-3, 100 warm-up steps, cosine to 1e-4, beta2 0.99, weight decay 0.1, clip 1.0, dropout 0.2;
# published best validation loss 1.4697) for the book's MHA and two more configurations, on one CUDA device.
# Usage: tools/shakespeare_gpu.sh DATA_DIR OUT_DIR [ATTENTION[:KEY=VALUE] ...]   (default: mha dense-qk matroidal-qk:m=128)
# e.g.   tools/shakespeare_gpu.sh ../shared/data/tinyshakespeare runs/shakespeare-gpu mha matroidal-qk:m=128
# STEPS, WARMUP, EVAL_BATCHES, DEVICE override 5000, 100, 1000, cuda (CPU smoke test: STEPS=1 WARMUP=1 EVAL_BATCHES=1 DEVICE=cpu).
set -euo pipefail
data=${1:?the folder of input.txt}
out=${2:?the output folder}
shift 2
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(mha dense-qk matroidal-qk:m=128)
for conf in "${configs[@]}"; do
  name=${conf%%:*}
  kw=()
  [ "$name" != "$conf" ] && kw=(--attn-kw "${conf#*:}")
  damcha train --task shakespeare-char --data "$data" --attention "$name" "${kw[@]}" \
    --d-model 384 --n-heads 6 --n-layers 6 --d-ff 1536 --seq-len 256 --batch-size 64 --steps "${STEPS:-5000}" --warmup "${WARMUP:-100}" \
    --lr 1e-3 --min-lr-ratio 0.1 --beta2 0.99 --weight-decay 0.1 --grad-clip 1.0 --dropout 0.2 \
    --eval-every 250 --eval-batches "${EVAL_BATCHES:-1000}" --device "${DEVICE:-cuda}" --seed 0 --out "$out/$name"
done
