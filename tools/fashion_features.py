"""Train chapter 11g's FID feature extractor on Fashion-MNIST's training part and keep it beside the masked-patch
protocol: results/fashion-masked/features.pt (its weights) and features.json (its settings, accuracies and SHA-256).

    OMP_NUM_THREADS=1 python tools/fashion_features.py [--data DIR]
"""
import argparse, hashlib, json
from pathlib import Path
import torch
from damcha.fashion import train_features

OUT = Path(__file__).resolve().parents[1] / "results" / "fashion-masked"

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="Fashion-MNIST's folder (default: Debian's)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    net, info = train_features(args.data)
    OUT.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.contiguous() for k, v in net.state_dict().items()}, OUT / "features.pt")
    info["sha256"] = hashlib.sha256((OUT / "features.pt").read_bytes()).hexdigest()
    (OUT / "features.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info))
