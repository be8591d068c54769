"""Where a micro-batch's time goes: `perf` samples of accumlab-cli's sweep, by kind of work.

Each build's CLI runs one sweep point (the lesson's micro-batch 4, accum 4 by default, one
thread) long enough that its steady state dominates; `perf record` starts after the start-up
(--delay-ms) and samples every thread. The samples' symbols are sorted into kinds of work by
the table KINDS below (first match wins), and each kind's share is turned into microseconds
per micro-batch with the samples/sec that the same run reports in its accum-curve.json. A
measurement, not a test: it prints a table and never fails on a timing.

Usage: /usr/bin/python3 scripts/bench/profile_step.py [--build NAME=CLI ...] [--model lesson]
         [--micro-batch 4] [--accum 4] [--num-steps 10000] [--hidden 0] [--top 0]
  --model wide  the wide preset (1024-4096-4096-256): e.g. --model wide --micro-batch 64
                --num-steps 40 --delay-ms 6000
  --top N       also prints each build's N hottest symbols
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# (kind, pattern on "dso symbol"); the first that matches takes the sample.
KINDS = [
    # A BLAS packs panels of both matrices before its kernel runs (OpenBLAS's *copy routines,
    # oneMKL's scopy) and, with beta = 0, OpenBLAS first zeroes the output (sgemm_beta, which
    # calls libc's memset: that part lands in "tensor objects and allocation" below).
    ("BLAS packing and zeroing", r"sgemm_(it|in|ot|on)copy|sgemm_scopy|sgemm_beta|gemm_beta"),
    ("BLAS (sgemm kernels)", r"libopenblas|mkl_blas|mkl_|sgemm|gemm_"),
    ("oneDNN (GELU's primitive)", r"libdnnl|dnnl|ideep"),
    ("thread-local state, RecordFunction, autocast", r"ThreadLocalState|RecordFunction|CallbackManager|CacheEntry|"
     r"autocast|__tls_get_addr|AutogradState|getAccelerator|ThreadLocalDebugInfo|StepCallbacks|tls_|TLS|"
     r"ThreadLocalPythonObjects|SafePyObject|NamesMode|WarningUtils|pthread_getspecific"),
    ("autograd engine and graph", r"torch::autograd::|InputBuffer|GraphTask|Node::|collect_next_edges|Edge"),
    ("elementwise and reduction kernels", r"Vectorized|VectorizedLoop|_kernel|loop_2d|binary_kernel|reduce|"
     r"cpu_kernel|vec::|log_softmax|nll_loss|gelu|GeluKernel|addmm_impl|::native::"),
    ("TensorIterator set-up", r"TensorIterator"),
    ("dispatcher", r"c10::impl::OperatorEntry|c10::Dispatcher|DispatchKey|KernelFunction|OperatorHandle|"
     r"wrap_kernel_functor|BoxedKernel|make_boxed|impl::call_functor|at::_ops::|runtimeDispatchKeySetHas"),
    ("tensor objects and allocation", r"libtcmalloc|malloc|free|operator new|operator delete|aligned_alloc|"
     r"TensorImpl|intrusive_ptr|StorageImpl|empty_|Allocator|memalign|_Sp_counted|SmallVector|memset|memmove|memcpy"),
    ("AccumLab's own code", r"^accumlab-cli "),
    ("kernel (system calls, faults)", r"\[kernel"),
    # Debian strips libtorch_cpu.so.1.13's internal symbols: perf sees only their addresses.
    ("LibTorch, unnamed (Debian strips its internal symbols)", r"^libtorch\S* 0x[0-9a-f]+$"),
]
OTHER = "other"


def run_cli(cli, args, out_dir, perf_data):
    cmd = [cli, "--model", args.model, "--labels", "random", "--micro-batch", str(args.micro_batch), "--accum-grid", str(args.accum),
           "--num-steps", str(args.num_steps), "--repeats", "1", "--threads", "1", "--out-dir", out_dir]
    if args.hidden:
        cmd += ["--hidden", str(args.hidden)]
    perf = ["perf", "record", "-q", "-F", str(args.frequency), "-D", str(args.delay_ms), "-o", perf_data, "--"]
    subprocess.run(perf + cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out_dir, "accum-curve.json")) as f:
        point = json.load(f)["points"][0]
    return point["samples_per_sec"]


def samples_by_symbol(perf_data):
    out = subprocess.run(["perf", "report", "-i", perf_data, "--no-children", "--sort", "dso,sym", "-g", "none",
                          "--stdio", "--percent-limit", "0", "-F", "overhead,dso,sym"],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2), m.group(3).strip()))
    return rows


def kind_of(dso, sym):
    text = f"{os.path.basename(dso)} {sym}"
    if dso.startswith("[kernel"):
        return "kernel (system calls, faults)"
    for kind, pattern in KINDS:
        if re.search(pattern, text):
            return kind
    return OTHER


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", action="append", default=[], metavar="NAME=CLI",
                   help="a build's CLI (default: LibTorch 1.13 = build/, 2.x = build-torch2/ where built)")
    p.add_argument("--model", default="lesson", choices=["lesson", "wide"])
    p.add_argument("--micro-batch", type=int, default=4)
    p.add_argument("--accum", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=10000)
    p.add_argument("--hidden", type=int, default=0)
    p.add_argument("--frequency", type=int, default=1999, help="perf's samples per second")
    p.add_argument("--delay-ms", type=int, default=4000, help="perf starts after the CLI's start-up")
    p.add_argument("--top", type=int, default=0)
    args = p.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    builds = [b.split("=", 1) for b in args.build]
    if not builds:
        builds = [(name, os.path.join(root, path)) for name, path in
                  (("LibTorch 1.13", "build/app/cli/accumlab-cli"), ("LibTorch 2.x", "build-torch2/app/cli/accumlab-cli"))
                  if os.access(os.path.join(root, path), os.X_OK)]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, cli) in enumerate(builds):
            data = os.path.join(tmp, f"{i}.data")
            rate = run_cli(cli, args, os.path.join(tmp, str(i)), data)
            rows = samples_by_symbol(data)
            total = sum(r[0] for r in rows) or 1.0
            shares = {}
            for pct, dso, sym in rows:
                k = kind_of(dso, sym)
                shares[k] = shares.get(k, 0.0) + pct / total
            us_per_micro = 1e6 * args.micro_batch / rate
            results.append((name, rate, us_per_micro, shares, rows))
            print(f"{name}: {rate:,.0f} samples/sec, {us_per_micro:.1f} us per micro-batch "
                  f"({args.model} model, micro {args.micro_batch}, accum {args.accum}, one thread)", file=sys.stderr)

    kinds = [k for k, _ in KINDS] + [OTHER]
    # Microseconds for the lesson's sizes, milliseconds where a micro-batch takes 10 ms or more.
    unit, scale = ("ms", 1e-3) if max(r[2] for r in results) >= 1e4 else ("µs", 1.0)
    results = [(n, rate, t * scale, shares, rows) for n, rate, t, shares, rows in results]
    head = "| kind of work | " + " | ".join(f"{n} {unit} (share)" for n, *_ in results) + " |"
    if len(results) == 2:
        head += f" difference {unit} |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for k in kinds:
        cells = [f"{r[2] * r[3].get(k, 0.0):.1f} ({100 * r[3].get(k, 0.0):.0f}%)" for r in results]
        line = f"| {k} | " + " | ".join(cells) + " |"
        if len(results) == 2:
            line += f" {results[1][2] * results[1][3].get(k, 0.0) - results[0][2] * results[0][3].get(k, 0.0):+.1f} |"
        print(line)
    total = "| **a micro-batch** | " + " | ".join(f"**{r[2]:.1f}**" for r in results) + " |"
    if len(results) == 2:
        total += f" **{results[1][2] - results[0][2]:+.1f}** |"
    print(total)
    for name, _, _, _, rows in results if args.top else []:
        print(f"\n{name}: the {args.top} hottest symbols")
        for pct, dso, sym in sorted(rows, reverse=True)[:args.top]:
            print(f"  {pct:5.2f}%  {os.path.basename(dso)}  {sym[:110]}  [{kind_of(dso, sym)}]")


if __name__ == "__main__":
    main()
