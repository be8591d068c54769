"""Which operators and autograd nodes a micro-batch runs, per build: counts and times by name.

Builds scripts/bench/op_counter.cpp (a global RecordFunction callback, the hook LibTorch's own
profiler uses) against each build's LibTorch, preloads it into that build's accumlab-cli (and,
with --eager or --with-eager, into the lesson's loop in PyTorch) for one sweep point (the
lesson's micro-batch 4, one thread, random labels) and prints, per name, the
calls and the self time per micro-batch (a micro-batch is one NllLossBackward0 node; the
window's operators, once per accum_steps micro-batches, show as fractions). The callback costs
time of its own, so the run is also timed without it: the counts are exact, the times are
inflated (each build's line says by how much) and are for comparing names and builds.

A measurement, not a test: it prints tables and never fails on a timing.

Usage: /usr/bin/python3 scripts/bench/ops_per_micro.py [--accum 4] [--num-steps 10000] [--top 40]
         [--build NAME=CLI=TORCH_PREFIX ...] [--eager NAME=PYTHON=TORCH_PREFIX ...] [--with-eager]
  TORCH_PREFIX holds include/ and lib/ of the build's LibTorch (default: /usr for build/,
  the torch wheel of .venv-torch2 for build-torch2/).
  --eager       the lesson's loop in PyTorch (scripts/bench/lesson_reference.py) on that Python,
                whose torch must be the LibTorch under TORCH_PREFIX
  --with-eager  adds the 2.x wheel's eager loop (.venv-torch2/bin/python) as the last column
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PER_MICRO = "NllLossBackward0"  # one per micro-batch's backward
ENGINE = "autograd::engine::evaluate_function"  # the engine's record around each node


def wheel_torch():
    wheel = glob.glob(os.path.join(ROOT, ".venv-torch2/lib/python3*/site-packages/torch"))
    return wheel[0] if wheel else None


def default_builds():
    builds = []
    cli = os.path.join(ROOT, "build/app/cli/accumlab-cli")
    if os.access(cli, os.X_OK):
        builds.append(("LibTorch 1.13", "cli", cli, "/usr"))
    cli = os.path.join(ROOT, "build-torch2/app/cli/accumlab-cli")
    if os.access(cli, os.X_OK) and wheel_torch():
        builds.append(("LibTorch 2.x", "cli", cli, wheel_torch()))
    return builds


def build_counter(prefix, out):
    lib = os.path.join(prefix, "lib")
    if prefix == "/usr":
        lib = "/usr/lib/x86_64-linux-gnu"
    cmd = ["g++", "-std=c++17", "-O2", "-shared", "-fPIC", "-o", out, os.path.join(ROOT, "scripts/bench/op_counter.cpp"),
           "-I" + os.path.join(prefix, "include"), "-L" + lib, "-Wl,-rpath," + lib, "-ltorch_cpu", "-lc10"]
    subprocess.run(cmd, check=True)


def run_peer(kind, path, args, out_dir, env_extra):
    env = dict(os.environ, **env_extra)
    if kind == "eager":
        cmd = [path, os.path.join(ROOT, "scripts/bench/lesson_reference.py"), "--micro-batch", str(args.micro_batch),
               "--accum-grid", str(args.accum), "--num-steps", str(args.num_steps), "--threads", "1"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
        return json.loads(out)["points"][0]["samples_per_sec"]
    cmd = [path, "--model", "lesson", "--labels", "random", "--micro-batch", str(args.micro_batch), "--accum-grid",
           str(args.accum), "--num-steps", str(args.num_steps), "--repeats", "1", "--threads", "1", "--out-dir", out_dir]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    with open(os.path.join(out_dir, "accum-curve.json")) as f:
        return json.load(f)["points"][0]["samples_per_sec"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", action="append", default=[], metavar="NAME=CLI=TORCH_PREFIX")
    p.add_argument("--eager", action="append", default=[], metavar="NAME=PYTHON=TORCH_PREFIX")
    p.add_argument("--with-eager", action="store_true", help="add the 2.x wheel's eager loop")
    p.add_argument("--micro-batch", type=int, default=4)
    p.add_argument("--accum", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=10000)
    p.add_argument("--delay-ms", type=int, default=1000, help="records before this are not tallied (start-up)")
    p.add_argument("--top", type=int, default=40, help="names shown, by the first build's self time")
    args = p.parse_args()
    builds = [(n, "cli", c, t) for n, c, t in (b.split("=", 2) for b in args.build)] or default_builds()
    builds += [(n, "eager", py, t) for n, py, t in (e.split("=", 2) for e in args.eager)]
    if args.with_eager:
        if not wheel_torch():
            sys.exit("--with-eager needs .venv-torch2 (scripts/torch2-check.sh makes it)")
        builds.append(("PyTorch 2.x eager", "eager", os.path.join(ROOT, ".venv-torch2/bin/python"), wheel_torch()))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, kind, path, prefix) in enumerate(builds):
            so = os.path.join(tmp, f"counter{i}.so")
            build_counter(prefix, so)
            plain = run_peer(kind, path, args, os.path.join(tmp, f"plain{i}"), {})
            ops_json = os.path.join(tmp, f"ops{i}.json")
            counted = run_peer(kind, path, args, os.path.join(tmp, f"counted{i}"),
                               {"LD_PRELOAD": so, "ACCUMLAB_OPS_OUT": ops_json, "ACCUMLAB_OPS_DELAY_MS": str(args.delay_ms)})
            with open(ops_json) as f:
                doc = json.load(f)
            records = {r["name"]: r for r in doc["records"]}
            micros = records.get(PER_MICRO, {}).get("calls", 0)
            if not micros:
                sys.exit(f"{name}: no {PER_MICRO} was recorded; does its LibTorch live under {prefix}?")
            results.append((name, plain, counted, micros, records))
            # The engine records each node twice: the node, and its evaluate_function around it.
            ops = sum(r["calls"] for n, r in records.items() if not r["node"] and not n.startswith(ENGINE)) / micros
            nodes = sum(r["calls"] for r in records.values() if r["node"]) / micros
            print(f"{name}: {plain:,.0f} samples/sec plain ({1e6 * args.micro_batch / plain:.1f} us a micro-batch), "
                  f"{counted:,.0f} counted ({1e6 * args.micro_batch / counted:.1f} us); per micro-batch "
                  f"{ops:.2f} operator calls and {nodes:.2f} autograd nodes "
                  f"(micro {args.micro_batch}, accum {args.accum}, one thread)")

    first = results[0][4]
    names = sorted(first, key=lambda n: -first[n]["self_ns"])
    for _, _, _, _, records in results[1:]:
        names += sorted((n for n in records if n not in first), key=lambda n: -records[n]["self_ns"])
    shown = names[:args.top] if args.top else names
    head = "| name | " + " | ".join(f"{r[0]}: calls, self µs" for r in results) + " |"
    print()
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for n in shown:
        cells = []
        for _, _, _, micros, records in results:
            r = records.get(n)
            cells.append(f"{r['calls'] / micros:.2f}, {r['self_ns'] / micros / 1e3:.2f}" if r else "-")
        kind = "node " if any(res[4].get(n, {}).get("node") for res in results) else ""
        print(f"| {kind}`{n}` | " + " | ".join(cells) + " |")
    rest = [n for n in names if n not in shown]
    if rest:
        cells = []
        for _, _, _, micros, records in results:
            rs = [records[n] for n in rest if n in records]
            cells.append(f"{sum(r['calls'] for r in rs) / micros:.2f}, {sum(r['self_ns'] for r in rs) / micros / 1e3:.2f}")
        print(f"| {len(rest)} others | " + " | ".join(cells) + " |")
    cells = []
    for _, _, _, micros, records in results:
        cells.append(f"{sum(r['calls'] for r in records.values()) / micros:.2f}, "
                     f"{sum(r['self_ns'] for r in records.values()) / micros / 1e3:.2f}")
    print("| **all records** | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
