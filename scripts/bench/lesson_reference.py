"""PyTorch reference for AccumLab's speed comparison.

The lesson's default sweep (micro-batch 4, accumulation 1..16, the lesson's MLP
in 64 / hidden 128 / 16 classes, SGD lr 0.05, random labels), written the way a
careful PyTorch user would: per optimizer step the window's data is generated,
the buffers are zeroed once, each micro-batch runs forward and backward with
loss / N, the per-tensor gradient norms and the mean loss are read in one host
transfer, and SGD (foreach) steps once. The timed region matches AccumLab's
(see `timed_region` in accum-curve.json). Prints one JSON object.

--compile runs the same model through torch.compile (PyTorch 2.x; inductor's CPU
code for the forward and, through AOTAutograd, the backward): the best a Python
user can do with the same loop. Compilation happens in the warm-up steps, outside
the timed region; autograd still fills the gradient buffers.
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn


def make_model(in_dim, hidden, classes):
    return nn.Sequential(
        nn.Linear(in_dim, hidden), nn.GELU(),
        nn.Linear(hidden, hidden), nn.GELU(),
        nn.Linear(hidden, classes),
    )


def run_point(micro, accum, steps, warmup, lr, seed, compile_model=False, in_dim=64, hidden=128, classes=16):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = make_model(in_dim, hidden, classes)
    params = list(model.parameters())
    if compile_model:
        # dynamic=False: one graph for the micro-batch shape, as every micro-batch has it.
        model = torch.compile(model, dynamic=False)
    opt = torch.optim.SGD(params, lr=lr, foreach=True)
    loss_fn = nn.CrossEntropyLoss()
    for p in params:
        p.grad = torch.zeros_like(p)

    def window():
        x = torch.randn(micro * accum, in_dim, generator=gen)          # (effective, in)
        y = torch.randint(0, classes, (micro * accum,), generator=gen)  # (effective,)
        for g in (p.grad for p in params):
            g.zero_()
        losses = []
        for xs, ys in zip(x.split(micro), y.split(micro)):
            raw = loss_fn(model(xs), ys)
            (raw / accum if accum > 1 else raw).backward()
            losses.append(raw.detach())
        with torch.no_grad():
            norms = torch.stack(torch._foreach_norm([p.grad for p in params]))
            host = torch.cat([norms, torch.stack(losses)]).tolist()  # one host transfer
        opt.step()
        return sum(host[len(params):]) / accum

    for _ in range(warmup):
        window()
    times, losses = [], []
    start = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        losses.append(window())
        times.append((time.perf_counter() - t0) * 1e3)
    wall = time.perf_counter() - start
    return {
        "effective_batch": micro * accum,
        "accum_steps": accum,
        "micro_batch": micro,
        "avg_loss": sum(losses) / len(losses),
        "samples_per_sec": steps * micro * accum / wall,
        "median_step_ms": statistics.median(times),
        "steps": steps,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--micro-batch", type=int, default=4)
    ap.add_argument("--accum-grid", default="1,2,4,8,16")
    ap.add_argument("--num-steps", type=int, default=25)
    ap.add_argument("--warmup-steps", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2.x)")
    ap.add_argument("--hidden", type=int, default=128)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    grid = [int(a) for a in args.accum_grid.split(",")]
    warmup = max(args.warmup_steps, 3) if args.compile else args.warmup_steps
    points = [run_point(args.micro_batch, a, args.num_steps, warmup, args.lr, args.seed, args.compile,
                        hidden=args.hidden) for a in grid]
    print(json.dumps({"torch_version": torch.__version__, "threads": torch.get_num_threads(),
                      "compiled": args.compile, "points": points}))


if __name__ == "__main__":
    main()
