"""The micro-measurements quoted in the benchmark chapters (nbs/12_bench.ipynb, nbs/12a_speed.ipynb), one command each:

    python tools/microbench.py grad --threads 1        # the 128 MiB weight gradient: fresh pages vs pages already mapped
    THP_MEM_ALLOC_ENABLE=1 python tools/microbench.py grad --threads 1
    python tools/microbench.py products                # DAMCHA's causal product shapes against the 2048^3 anchor
    python tools/microbench.py sdpa --threads 1        # the CPU attention kernel at head widths 32 and 33
    python tools/microbench.py pairwise --threads 1 --repeats 1   # the pairwise matroidal form at the decoder shape
    python tools/microbench.py evict --threads 1       # MHA at the ViT shape: in blocks vs interleaved with a 256 MiB read
    python tools/microbench.py rowsum --threads 1      # decoder shape: 'rowsum' paths and a backward without recomputation
    python tools/microbench.py vit --threads 1         # ViT shape: MHA, DAMCHA full / rowsum, shared metrics
    python tools/microbench.py model --threads 1       # whole-model training step: MHA vs DAMCHA (shared) full / rowsum

Each prints medians of steps timed in blocks (damcha.bench.time_blocks), warm-up steps excluded; `rowsum` first checks
its prototype against `_MetricQueries` in float64 (values and every gradient) and prints peak memory (param grads in).
"""
import argparse, statistics, time
import torch
import torch.nn.functional as F
from damcha.bench import time_blocks, thp_active

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
    "One forward + backward of the pairwise matroidal form at the decoder shape (B=8, T=256, m=d), and its peak memory."
    from damcha.bench import SHAPES, PairwiseMahalanobis, make_step, step_memory, Candidate
    from damcha.mahalanobis import MatroidalAttention
    s = SHAPES[0]
    torch.manual_seed(0)
    pair = PairwiseMahalanobis(MatroidalAttention(s.D, s.H, m=s.dh))
    x = torch.randn(s.B, s.T, s.D, requires_grad=True)
    step = make_step(Candidate("pairwise m=d", pair, lambda x: pair(x, causal=True)), x)
    peak = step_memory(step, [p for p in pair.parameters()])["peak"]
    print(f"pairwise m=d at the decoder shape: peak {peak / 2 ** 30:.2f} GiB")
    return {"pairwise m=d, decoder shape": step}

class RowsumQueriesV(torch.autograd.Function):
    "q[r, i] = x[r, i] @ (W h[r] + b)[i]; backward without the metrics: V = g_i . W_i gives both gx and gh."
    @staticmethod
    def forward(ctx, xh, h, W, b, chunk, sub):  # (N, H, dh), (N, n_h), (H dh dh, n_h), (H, dh, dh)
        N, H, dh = xh.shape
        q = torch.bmm(xh.transpose(0, 1), b).transpose(0, 1).contiguous()          # (N, H, dh): x_i b_i
        buf = xh.new_empty(min(chunk, N), H * dh * dh)
        for r0 in range(0, N, chunk):
            R = min(chunk, N - r0)
            rows = slice(r0, r0 + R)
            m = torch.mm(h[rows], W.t(), out=buf[:R]).view(R * H, dh, dh)          # (R H, dh, dh)
            qr = q[rows].view(R * H, 1, dh)
            torch.baddbmm(qr, xh[rows].reshape(R * H, 1, dh), m, out=qr)
        ctx.save_for_backward(xh, h, W, b)
        ctx.chunk, ctx.sub = chunk, sub
        return q

    @staticmethod
    def backward(ctx, gq):
        xh, h, W, b = ctx.saved_tensors
        N, H, dh = xh.shape
        n_h = h.shape[1]
        gq = gq.contiguous()
        gx = torch.bmm(gq.transpose(0, 1), b.transpose(1, 2)).transpose(0, 1).contiguous()  # (N, H, dh)
        gb = torch.bmm(xh.permute(1, 2, 0), gq.transpose(0, 1))                   # (H, dh, dh)
        Wt = W.view(H, dh, dh, n_h).transpose(1, 2).reshape(H, dh, dh * n_h)       # (H, e, a n_h): W_i[a, e, k] at [e, a k]
        gh = torch.empty_like(h)
        gW = torch.empty_like(W)
        buf = xh.new_empty(min(ctx.chunk, N), H * dh * dh)
        for j, r0 in enumerate(range(0, N, ctx.chunk)):
            R = min(ctx.chunk, N - r0)
            rows = slice(r0, r0 + R)
            g = gq[rows]                                                           # (R, H, dh)
            for s0 in range(r0, r0 + R, ctx.sub):
                S = min(ctx.sub, r0 + R - s0)
                sr = slice(s0, s0 + S)
                V = torch.bmm(gq[sr].transpose(0, 1), Wt).view(H, S, dh, n_h)      # (H, S, a, n_h): sum_e g_e W[a, e, :]
                gx[sr] += torch.matmul(V, h[sr].unsqueeze(-1)).squeeze(-1).transpose(0, 1)   # (S, H, a)
                gh[sr] = torch.matmul(xh[sr].transpose(0, 1).unsqueeze(-2), V).squeeze(-2).sum(0)  # (S, n_h)
            gm = torch.mul(xh[rows].unsqueeze(-1), g.unsqueeze(-2), out=buf[:R].view(R, H, dh, dh)).view(R, -1)
            if j == 0:
                torch.mm(gm.t(), h[rows], out=gW)
            else:
                torch.addmm(gW, gm.t(), h[rows], out=gW)
        return gx, gh, gW, gb, None, None

def v_head_queries(gen, sub=16):
    "A `head_queries` for generator `gen` (rowsum) whose backward uses RowsumQueriesV."
    def head_queries(xh, c, layer=0, chunk_size=None):
        H, dh = gen.n_heads, gen.dh
        W, b = gen._affine_map()
        h = gen._hidden(c)
        n_h = h.shape[-1]
        q = RowsumQueriesV.apply(xh.reshape(-1, H, dh), h.reshape(-1, n_h), W.reshape(-1, n_h), b, chunk_size, sub)
        return q.view(xh.shape)
    return head_queries


def _layer_step(m, x, causal):
    from damcha.bench import Candidate, make_step
    return make_step(Candidate("", m, lambda x: m(x, causal=causal)), x)

def evict():
    "MHA at the ViT shape timed step after step, and with a 256 MiB read between every two steps (the old protocol)."
    from damcha.baselines import MultiHeadAttention
    torch.manual_seed(0)
    m = MultiHeadAttention(256, 8)
    step = _layer_step(m, torch.randn(32, 65, 256, requires_grad=True), False)
    a = torch.ones(2 ** 26)
    return {"mha, back to back": step, "256 MiB read, then mha": lambda: (a.sum(), step()), "256 MiB read alone": a.sum}

def rowsum():
    "Decoder shape: the reference's plain path, 'rowsum' chunked / plain, and 'rowsum' with RowsumQueriesV."
    from damcha.attention import DamchaAttention
    from damcha.chunked import _MetricQueries
    from damcha.bench import step_memory
    g64 = torch.Generator().manual_seed(0)
    N, Hs, ds, ns = 37, 3, 4, 6
    args = [torch.randn(*s, dtype=torch.float64, generator=g64, requires_grad=True)
            for s in ((N, Hs, ds), (N, ns), (Hs * ds * ds, ns), (Hs, ds, ds))]
    gq = torch.randn(N, Hs, ds, dtype=torch.float64, generator=g64)
    q1 = _MetricQueries.apply(*args, 10)
    q2 = RowsumQueriesV.apply(*args, 10, 3)
    for a, b in zip([q1, *torch.autograd.grad(q1, args, gq)], [q2, *torch.autograd.grad(q2, args, gq)]):
        assert torch.allclose(a, b, atol=1e-12), (a - b).abs().max()
    print("RowsumQueriesV == _MetricQueries in float64: values and the gradients of x, h, W, b")
    torch.manual_seed(0)
    x = torch.randn(8, 256, 256, requires_grad=True)
    mods = {"reference plain (full, every metric kept)": DamchaAttention(256, 8, chunk_size=None),
            "rowsum chunked (auto)": DamchaAttention(256, 8, parameterization="rowsum"),
            "rowsum plain (every metric kept)": DamchaAttention(256, 8, parameterization="rowsum", chunk_size=None),
            "rowsum, one chunk of N = 2048 (no recomputation)": DamchaAttention(256, 8, parameterization="rowsum",
                                                                                chunk_size=2048),
            "rowsum, V backward (auto chunk)": DamchaAttention(256, 8, parameterization="rowsum")}
    gen = mods["rowsum, V backward (auto chunk)"].generator
    gen.head_queries = v_head_queries(gen)
    steps = {k: _layer_step(m, x, True) for k, m in mods.items()}
    for k, st in steps.items():
        mib = step_memory(st, [])["peak"] / 2 ** 20
        print(f"  {k:48s} peak {mib:6.1f} MiB (parameter gradients in)")
    return steps

def vit():
    "ViT shape (B=32, T=65, D=256, H=8), forward + backward: MHA, DAMCHA with its own generator (full, rowsum)."
    from damcha.bench import SHAPES, candidates, make_step
    s = SHAPES[1]
    x = torch.randn(s.B, s.T, s.D, requires_grad=True)
    keep = ("mha", "damcha", "damcha rowsum", "damcha shared")
    return {c.name: make_step(c, x) for c in candidates(s) if c.name in keep}

def model():
    "The bench's whole-model step (Decoder, 2 layers, D=128, 8 heads, B=32, T=256, AdamW): MHA and DAMCHA; FLOP/s ratio."
    from damcha.bench import step_flops
    from damcha.speed import MODEL_SHAPE, model_candidates, make_train_step
    s = MODEL_SHAPE
    idx = torch.randint(0, s.vocab, (s.B, s.T), generator=torch.Generator().manual_seed(0))
    models = {k: m for k, m in model_candidates(s).items() if k in ("mha", "damcha", "damcha rowsum")}
    steps = {k: make_train_step(m, idx) for k, m in models.items()}
    model.flops = {k: step_flops(st) for k, st in steps.items()}
    return steps

if __name__ == "__main__":
    p = argparse.ArgumentParser(description="Micro-measurements quoted in the benchmark chapter.")
    p.add_argument("what", choices=["grad", "products", "sdpa", "pairwise", "evict", "rowsum", "vit", "model"])
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--cpu-time", action="store_true", help="time.process_time (with --threads 1: robust to load)")
    args = p.parse_args()
    if args.threads: torch.set_num_threads(args.threads)
    fns = {"grad": grad, "products": products, "sdpa": sdpa, "pairwise": pairwise, "evict": evict,
           "rowsum": rowsum, "vit": vit,
           "model": model}[args.what]()
    clock = time.process_time if args.cpu_time else time.perf_counter
    raw = time_blocks(fns, repeats=args.repeats, warmup=1 if args.what == "pairwise" else 2, rounds=3, clock=clock)
    times = {k: statistics.median(v) for k, v in raw.items()}
    print(f"{args.what}: {torch.get_num_threads()} threads, huge-page allocation {'on' if thp_active() else 'off'}, "
          f"median of {args.repeats} steps timed in 3 blocks, {'CPU' if args.cpu_time else 'wall'} time")
    for k, t in times.items():
        extra = ""
        if args.what == "products": extra = f"  {(2 * 2048 ** 3 if k.startswith('anchor') else 2 * 512 * NH * H * DH * DH) / t / 1e9:.1f} GFLOP/s"
        print(f"  {k:32s} {1e3 * t:8.2f} ms{extra}")
    if args.what in ("vit", "rowsum"):
        ref = next(iter(times.values()))
        for k, t in times.items():
            print(f"  {k:48s} {t / ref:.2f} x the first")
    if args.what == "model":
        for k, t in times.items():
            ratio = model.flops[k] / t / (model.flops["mha"] / times["mha"])
            print(f"  {k:48s} achieved FLOP/s {ratio:.2f} x MHA's ({model.flops[k] / 1e9:.1f} GFLOP per step)")
    if args.what == "evict":
        after = times["256 MiB read, then mha"] - times["256 MiB read alone"]
        print(f"  mha after the read (difference) {1e3 * after:8.2f} ms: {after / times['mha, back to back']:.2f} x")
    if args.what == "products":
        anchor = 2 * 2048 ** 3 / times["anchor 2048^3"]
        for k, t in times.items():
            if not k.startswith("anchor"): print(f"  {k:32s} {2 * 512 * NH * H * DH * DH / t / anchor:.2f} of the anchor")
