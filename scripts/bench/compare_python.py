"""AccumLab against the PyTorch reference, alternating, same settings and threads.

Each "peer" is one way of running the lesson's sweep: accumlab-cli from a build
(Debian's LibTorch 1.13, or the LibTorch 2.x build), or lesson_reference.py on a
Python with torch (Debian's 1.13, a 2.x venv), eagerly or through torch.compile.
In every round each peer runs once, the order rotating from round to round. For
each point it prints the median samples/sec of every peer, with its spread
(min-max over rounds), and the ratio of the first peer to each of the others
(median of the per-round ratios, with their min-max). A measurement, not a test:
it never fails on a timing.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_accumlab(cli, args, out_dir):
    cmd = [cli, "--labels", "random", "--micro-batch", str(args.micro_batch), "--accum-grid", args.accum_grid,
           "--num-steps", str(args.num_steps), "--threads", str(args.threads), "--out-dir", out_dir]
    if args.hidden:
        cmd += ["--hidden", str(args.hidden)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out_dir, "accum-curve.json")) as f:
        return json.load(f)["points"]


def run_python(python, args, compiled):
    cmd = [python, os.path.join(HERE, "lesson_reference.py"), "--micro-batch", str(args.micro_batch),
           "--accum-grid", args.accum_grid, "--num-steps", str(args.num_steps), "--threads", str(args.threads)]
    if compiled:
        cmd.append("--compile")
    if args.hidden:
        cmd += ["--hidden", str(args.hidden)]
    env = dict(os.environ)
    if args.python_preload:
        env["LD_PRELOAD"] = args.python_preload
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)["points"]


def parse_peer(text):
    """NAME=cli:PATH | NAME=eager:PYTHON | NAME=compile:PYTHON"""
    name, _, rest = text.partition("=")
    kind, _, path = rest.partition(":")
    if not name or kind not in ("cli", "eager", "compile") or not path:
        raise argparse.ArgumentTypeError(f"--peer takes NAME=cli:PATH, NAME=eager:PYTHON or NAME=compile:PYTHON, got {text!r}")
    return name, kind, path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", action="append", type=parse_peer, default=[],
                    help="repeatable; the first is the one the ratios are of. Default: "
                         "accumlab=cli:build/app/cli/accumlab-cli pytorch=eager:/usr/bin/python3")
    ap.add_argument("--micro-batch", type=int, default=4)
    ap.add_argument("--accum-grid", default="1,2,4,8,16")
    ap.add_argument("--num-steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=0, help="hidden width (0: the lesson's 128)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python-preload", default="",
                    help="LD_PRELOAD for the PyTorch side, e.g. the tcmalloc the apps link, to see what the "
                         "allocator alone is worth")
    args = ap.parse_args()
    peers = args.peer or [("accumlab", "cli", os.path.join(HERE, "..", "..", "build", "app", "cli", "accumlab-cli")),
                          ("pytorch", "eager", "/usr/bin/python3")]

    runs = {name: [] for name, _, _ in peers}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = peers[r % len(peers):] + peers[:r % len(peers)]
            for name, kind, path in order:
                if kind == "cli":
                    runs[name].append(run_accumlab(path, args, tmp))
                else:
                    runs[name].append(run_python(path, args, kind == "compile"))

    first = peers[0][0]
    n = len(runs[first][0])

    def sps(name, i):
        return [run[i]["samples_per_sec"] for run in runs[name]]

    print(f"micro {args.micro_batch}, hidden {args.hidden or 128}, threads {args.threads}, {args.num_steps} steps "
          f"per point, {args.rounds} rounds, order rotating"
          + (f", PyTorch with LD_PRELOAD={args.python_preload}" if args.python_preload else ""))
    print("peers: " + ", ".join(f"{name} ({kind} {path})" for name, kind, path in peers))
    print("samples/sec: median [min-max over rounds]")
    header = f"{'eff_batch':>9}" + "".join(f" {name:>24}" for name, _, _ in peers)
    print(header)
    for i in range(n):
        row = f"{runs[first][0][i]['effective_batch']:>9}"
        for name, _, _ in peers:
            v = sps(name, i)
            row += f" {statistics.median(v):>9.0f} [{min(v):>6.0f}-{max(v):>6.0f}]"
        print(row)
    if len(peers) > 1:
        print(f"ratio {first} / peer: median of the per-round ratios [min-max]")
        print(f"{'eff_batch':>9}" + "".join(f" {name:>20}" for name, _, _ in peers[1:]))
        for i in range(n):
            row = f"{runs[first][0][i]['effective_batch']:>9}"
            for name, _, _ in peers[1:]:
                ratios = [a / b for a, b in zip(sps(first, i), sps(name, i))]
                row += f" {statistics.median(ratios):>7.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
            print(row)
    for name, _, _ in peers:
        med = [statistics.median(sps(name, i)) for i in range(n)]
        print(f"{name}: effective batch {runs[name][0][0]['effective_batch']} at {100 * med[0] / max(med):.0f}% of its plateau")
    return 0


if __name__ == "__main__":
    sys.exit(main())
