"""Pilot runs of the two Fashion-MNIST protocols (chapter 11g), made before the protocols are written.

They measure what the protocols need to plan: the seed spread of each primary metric (test cross-entropy of the
best-validation ViT; masked-patch MSE over the whole test split) at the protocol's shape and budget, and whether
masked-patch reconstruction depends on the attention at all. For that, a control whose tokens cannot see each other
(`SelfOnlyAttention`: each token attends to itself alone, so the layer is W_O W_V x) is trained beside multi-head
attention at 1, 2 and 3 masked rows of the 4 x 4 patch grid (seed 0). Then MHA's seeds 1 to 3 and DAMCHA's 0 to 3 run
at the rows chosen from those (PILOT_ROWS=1 in the environment: the largest gain over the control). The spreads pool MHA's and DAMCHA's seeds. The rows go
to results/images-pilot/results.jsonl.

    OMP_NUM_THREADS=1 [PILOT_ROWS=1] python tools/image_pilots.py &   # twice: two one-thread workers share the runs
    python tools/image_pilots.py --baselines                        # the mean training image's masked-patch MSE
"""
import json, os, sys
from pathlib import Path
import torch.nn as nn
from damcha.models import ATTENTIONS
from damcha.experiments import RunSpec, run_specs, FULL_SPLIT

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "images-pilot"


class SelfOnlyAttention(nn.Module):
    "The control: every token attends to itself only, `(B, T, D) -> (B, T, D)` = out_proj(v_proj(x))."
    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, **_):
        super().__init__()
        self.v_proj, self.out_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def forward(self, x, mask=None, padding_mask=None, causal=False, cache=None, **_):
        return self.out_proj(self.v_proj(x))


ATTENTIONS["self-only"] = SelfOnlyAttention
VIT = dict(task="fashion-mnist", d_model=64, n_heads=4, n_layers=4, d_ff=128, batch_size=128, dropout=0.0,
           lr=1e-3, weight_decay=0.05, eval_batches=FULL_SPLIT, progress=False)
EPOCH = 430  # optimizer steps in one pass over the 55,000 training images at batch 128
ROWS = int(os.environ.get("PILOT_ROWS", "0"))  # the masked rows the spread pilots use, once chosen (0: not yet)
CONFS = {"mha": dict(attention="mha"), "self-only": dict(attention="self-only"),
         "damcha": dict(attention="damcha", share_mlp=True, mlp_hidden=(64,),
                        generator_kwargs=dict(parameterization="rowsum"))}


def specs() -> list[RunSpec]:
    every = lambda n: dict(steps=n, eval_every=n // 40)
    full = {**VIT, **every(10 * EPOCH)}
    low = {**VIT, **every(1500), "fraction": 0.05}
    dam = dict(attention="damcha", share_mlp=True, mlp_hidden=(64,), generator_kwargs=dict(parameterization="rowsum"))
    rec = lambda rows, conf, s: RunSpec(f"pilot reconstruct rows={rows}", conf, s,
                                        {**full, **CONFS[conf], "objective": "reconstruct", "mask_rows": rows},
                                        select=True)
    out = [RunSpec("pilot classify", "mha", s, {**full, "attention": "mha"}, select=True) for s in range(4)]
    out += [RunSpec("pilot classify 5%", "mha", s, {**low, "attention": "mha"}, select=True) for s in range(4)]
    out += [rec(r, c, 0) for r in (1, 2, 3) for c in ("mha", "self-only")]      # does the task need attention?
    # DAMCHA beside MHA (chapter 11d's configuration), so that the spread is pooled over two rows: 6 df, not 3
    out += [RunSpec("pilot classify", "damcha", s, {**full, **dam}, select=True) for s in range(4)]
    out += [RunSpec("pilot classify 5%", "damcha", s, {**low, **dam}, select=True) for s in range(4)]
    if ROWS:                                                                   # chosen from the runs above
        out += [rec(ROWS, "mha", s) for s in (1, 2, 3)] + [rec(ROWS, "damcha", s) for s in range(4)]
    return out


def mean_image_mse() -> float:
    """The model-free guess: each masked pixel predicted by its mean over the training images. Row masks pick every
    row equally often, so its expected masked-patch MSE on the test split is its MSE over every pixel."""
    from damcha.tasks import make_task
    task = make_task("fashion-mnist", objective="reconstruct")
    mean = task.train.tensors[0].mean(0, keepdim=True)                               # (1, 1, 28, 28)
    return float((task.test.tensors[0] - mean).pow(2).mean())


if __name__ == "__main__":
    if "--baselines" in sys.argv:                  # results/images-pilot/baselines.json
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "baselines.json").write_text(json.dumps(dict(mean_image_mse=mean_image_mse())) + "\n")
        sys.exit(0)
    run_specs(specs(), OUT, log=lambda *a, **k: print(*a, **k, file=sys.stdout))
