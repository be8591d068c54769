#!/usr/bin/env python3
"""One thread, every core, or --threads 0 (automatic), by the size of a micro-batch.

For a ladder of models and micro-batches (the widest matmul of a micro-batch from 2^16 to 2^22
multiply-adds) each given accumlab-cli runs the same point (accum 4, random labels) at
--threads 1, at --threads N (N = the machine's cores) and at --threads 0, the automatic choice
(threadsFor in core/config.h: one thread below 2^20 multiply-adds, else LibTorch's default),
in rounds whose order rotates. It prints each variant's median samples/sec, the median
[min-max] of the per-round ratio N threads / one thread, the count the automatic run used (the
curve's points[].threads) and the automatic run over the faster of the other two. A
measurement, not a test: nothing here fails on a timing.

Usage: /usr/bin/python3 scripts/bench/threads_by_size.py [--rounds 3] [--cli PATH ...]
(default: build/app/cli/accumlab-cli, and build-torch2/app/cli/accumlab-cli where it exists).
OMP_NUM_THREADS and MKL_NUM_THREADS are removed from the runs' environment: with either set
the automatic choice is LibTorch's default.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# (hidden, micro-batch, timed steps): the lesson's model is 64-hidden-16.
LADDER = [(128, 4, 400), (128, 16, 200), (256, 4, 200), (128, 64, 100), (512, 4, 100),
          (256, 16, 100), (512, 16, 50), (128, 256, 40)]
IN_FEATURES, CLASSES = 64, 16


def widest_macs(hidden, micro):
    return micro * max(IN_FEATURES * hidden, hidden * hidden, hidden * CLASSES)


def run(cli, hidden, micro, steps, threads, env, out):
    cmd = [cli, "--hidden", str(hidden), "--micro-batch", str(micro), "--accum-grid", "4",
           "--num-steps", str(steps), "--repeats", "3", "--labels", "random", "--threads", str(threads),
           "--out-dir", out]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "accum-curve.json")) as f:
        point = json.load(f)["points"][0]
    return point["samples_per_sec"], point["threads"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cli", action="append")
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    clis = args.cli or [p for p in (os.path.join(root, "build/app/cli/accumlab-cli"),
                                    os.path.join(root, "build-torch2/app/cli/accumlab-cli")) if os.access(p, os.X_OK)]
    if not clis:
        sys.exit("no accumlab-cli: build one (scripts/build.sh) or name it with --cli")
    cores = os.cpu_count() or 1
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    variants = [1, cores, 0]
    results = {}  # (cli, hidden, micro, variant) -> [(sps, threads)] per round
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for cli in clis:
                for hidden, micro, steps in LADDER:
                    for v in order:
                        results.setdefault((cli, hidden, micro, v), []).append(
                            run(cli, hidden, micro, steps, v, env, os.path.join(tmp, "out")))
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    print(f"{cores} cores, {args.rounds} rounds, accum 4, samples/sec as the median over rounds")
    for cli in clis:
        print(f"\n{os.path.relpath(cli, root)}")
        print(f"| hidden | micro | widest matmul | 1 thread | {cores} threads | {cores} / 1 | automatic | threads | automatic / faster |")
        print("|---|---|---|---|---|---|---|---|---|")
        for hidden, micro, _ in LADDER:
            one, many, auto = (results[(cli, hidden, micro, v)] for v in variants)
            ratios = [m[0] / o[0] for o, m in zip(one, many)]
            best = [a[0] / max(o[0], m[0]) for o, m, a in zip(one, many, auto)]
            used = sorted({a[1] for a in auto})
            print(f"| {hidden} | {micro} | {widest_macs(hidden, micro):,} | {statistics.median(s for s, _ in one):,.0f} | "
                  f"{statistics.median(s for s, _ in many):,.0f} | {statistics.median(ratios):.2f} "
                  f"[{min(ratios):.2f}-{max(ratios):.2f}] | {statistics.median(s for s, _ in auto):,.0f} | "
                  f"{'/'.join(map(str, used))} | {statistics.median(best):.2f} [{min(best):.2f}-{max(best):.2f}] |")


if __name__ == "__main__":
    main()
