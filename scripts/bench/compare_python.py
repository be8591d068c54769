"""AccumLab against the PyTorch reference, alternating, same settings and threads.

Runs `rounds` rounds; in each, accumlab-cli's sweep and lesson_reference.py's
sweep run back to back (order alternating). Prints samples/sec per point for
both (median over rounds), the ratio, and each side's effective-batch-4 share
of its own plateau. A measurement, not a test: it never fails on a timing.
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
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out_dir, "accum-curve.json")) as f:
        return json.load(f)["points"]


def run_python(python, args):
    cmd = [python, os.path.join(HERE, "lesson_reference.py"), "--micro-batch", str(args.micro_batch),
           "--accum-grid", args.accum_grid, "--num-steps", str(args.num_steps), "--threads", str(args.threads)]
    env = dict(os.environ)
    if args.python_preload:
        env["LD_PRELOAD"] = args.python_preload
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)["points"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "build", "app", "cli", "accumlab-cli"))
    ap.add_argument("--python", default="/usr/bin/python3", help="a Python with torch (Debian's python3-torch)")
    ap.add_argument("--micro-batch", type=int, default=4)
    ap.add_argument("--accum-grid", default="1,2,4,8,16")
    ap.add_argument("--num-steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python-preload", default="",
                    help="LD_PRELOAD for the PyTorch side, e.g. the tcmalloc the apps link, to see what the "
                         "allocator alone is worth")
    args = ap.parse_args()

    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            if r % 2 == 0:
                ours.append(run_accumlab(args.cli, args, tmp))
                theirs.append(run_python(args.python, args))
            else:
                theirs.append(run_python(args.python, args))
                ours.append(run_accumlab(args.cli, args, tmp))

    def med(runs, i, key):
        return statistics.median(run[i][key] for run in runs)

    n = len(ours[0])
    print(f"micro {args.micro_batch}, threads {args.threads}, {args.num_steps} steps per point, "
          f"median of {args.rounds} alternating rounds"
          + (f", PyTorch with LD_PRELOAD={args.python_preload}" if args.python_preload else ""))
    print(f"{'eff_batch':>9} {'accumlab_sps':>13} {'pytorch_sps':>12} {'ratio':>6} {'accumlab_ms':>12} {'pytorch_ms':>11}")
    for i in range(n):
        a, p = med(ours, i, "samples_per_sec"), med(theirs, i, "samples_per_sec")
        print(f"{ours[0][i]['effective_batch']:>9} {a:>13.1f} {p:>12.1f} {a / p:>6.2f} "
              f"{med(ours, i, 'median_step_ms'):>12.3f} {med(theirs, i, 'median_step_ms'):>11.3f}")
    for name, runs in (("accumlab", ours), ("pytorch", theirs)):
        sps = [med(runs, i, "samples_per_sec") for i in range(n)]
        print(f"{name}: effective batch {runs[0][0]['effective_batch']} at {100 * sps[0] / max(sps):.0f}% of its plateau")
    return 0


if __name__ == "__main__":
    sys.exit(main())
