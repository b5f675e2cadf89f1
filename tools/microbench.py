"""The micro-measurements quoted in the benchmark chapter (nbs/10_bench.ipynb), one command each:

    python tools/microbench.py grad --threads 1        # the 128 MiB weight gradient: fresh pages vs pages already mapped
    THP_MEM_ALLOC_ENABLE=1 python tools/microbench.py grad --threads 1
    python tools/microbench.py products                # DAMCHA's causal product shapes against the 2048^3 anchor
    python tools/microbench.py sdpa --threads 1        # the CPU attention kernel at head widths 32 and 33
    python tools/microbench.py pairwise --threads 1 --repeats 1   # the seed's pairwise form at the decoder shape

Each prints medians of interleaved rounds (damcha.bench.time_rounds), warm-up excluded.
"""
import argparse, statistics
import torch
import torch.nn.functional as F
from damcha.bench import time_rounds, thp_active

H, DH, NH = 8, 32, 512                                      # D = 256, 8 heads, generator width n_h = 512 (the bench's shapes)

def grad():
    "Materialise the expanded gradient of the block sum, as autograd does, against the same writes into a touched buffer."
    g = torch.randn(H, DH, DH, NH)                                                       # (H, dh, dh, n_h): the gradient of W_eff
    buf = torch.zeros(H, DH, H, DH, NH)                                                  # 128 MiB, touched once
    return {"fresh pages (as autograd)": lambda: g.unsqueeze(2).expand(H, DH, H, DH, NH).reshape(H * DH * H * DH, NH),
            "pages already mapped": lambda: buf.copy_(g.unsqueeze(2).expand_as(buf))}

def products():
    "The four products of a chunk of 512 contexts (chapter 01), each against the anchor's rate."
    a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
    W, h, gm = torch.randn(H * DH * DH, NH), torch.randn(512, NH), torch.randn(512, H * DH * DH)
    buf, gh, gW = torch.empty(512, H * DH * DH), torch.empty(512, NH), torch.empty(H * DH * DH, NH)
    return {"anchor 2048^3": lambda: a @ b,
            "forward / recompute: h W^T": lambda: torch.mm(h, W.t(), out=buf),
            "backward: g W": lambda: torch.mm(gm, W, out=gh),
            "backward: g^T h": lambda: torch.mm(gm.t(), h, out=gW)}

def sdpa():
    "Causal forward + backward of scaled_dot_product_attention at the decoder shape, by head width (q/k and v)."
    from torch.nn.attention import sdpa_kernel, SDPBackend
    def step(wqk, wv, math=False):
        q, k = (torch.randn(8, H, 256, wqk, requires_grad=True) for _ in range(2))
        v, go = torch.randn(8, H, 256, wv, requires_grad=True), torch.randn(8, H, 256, wv)
        def f():
            with sdpa_kernel(SDPBackend.MATH if math else [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
                F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(go)
        return f
    return {"width 32/32": step(32, 32), "width 33/33": step(33, 33), "width 33/32 (v unpadded)": step(33, 32),
            "width 64/64": step(64, 64), "width 33/33, math backend": step(33, 33, math=True)}

def pairwise():
    "One forward + backward of the seed's pairwise matroidal form at the decoder shape (B=8, T=256, m=d), and its peak memory."
    from damcha.bench import SHAPES, PairwiseMahalanobis, make_step, step_memory, Candidate
    from damcha.matroid import MatroidalAttention
    s = SHAPES[0]
    torch.manual_seed(0)
    pair = PairwiseMahalanobis(MatroidalAttention(s.D, s.H, m=s.dh))
    x = torch.randn(s.B, s.T, s.D, requires_grad=True)
    step = make_step(Candidate("pairwise m=d", pair, lambda x: pair(x, causal=True)), x)
    peak = step_memory(step, [p for p in pair.parameters()])["peak"]
    print(f"pairwise m=d at the decoder shape: peak {peak / 2 ** 30:.2f} GiB")
    return {"pairwise m=d, decoder shape": step}

if __name__ == "__main__":
    p = argparse.ArgumentParser(description="Micro-measurements quoted in the benchmark chapter.")
    p.add_argument("what", choices=["grad", "products", "sdpa", "pairwise"])
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--repeats", type=int, default=9)
    args = p.parse_args()
    if args.threads: torch.set_num_threads(args.threads)
    fns = {"grad": grad, "products": products, "sdpa": sdpa, "pairwise": pairwise}[args.what]()
    times = {k: statistics.median(v) for k, v in time_rounds(fns, repeats=args.repeats, warmup=1 if args.what == "pairwise" else 2).items()}
    print(f"{args.what}: {torch.get_num_threads()} threads, huge-page allocation {'on' if thp_active() else 'off'}, "
          f"median of {args.repeats} rounds")
    for k, t in times.items():
        extra = ""
        if args.what == "products": extra = f"  {(2 * 2048 ** 3 if k.startswith('anchor') else 2 * 512 * NH * H * DH * DH) / t / 1e9:.1f} GFLOP/s"
        print(f"  {k:32s} {1e3 * t:8.2f} ms{extra}")
    if args.what == "products":
        anchor = 2 * 2048 ** 3 / times["anchor 2048^3"]
        for k, t in times.items():
            if not k.startswith("anchor"): print(f"  {k:32s} {2 * 512 * NH * H * DH * DH / t / anchor:.2f} of the anchor")
