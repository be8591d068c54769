#!/usr/bin/env python3
"""The window's sweep against the CLI's, alternately: samples/sec of each point drawn by the
window (`accumlab --autorun`, offscreen, its own defaults: equal work, ten blocks) over the same
sweep run by `accumlab-cli --equal-work --repeats 10`, round by round, with the medians and the
worst GUI-thread stall each window run printed. A report, never a pass/fail: it exits 0 whatever
the ratios are.

Usage: scripts/bench/window_vs_cli.py [--rounds 3] [--threads 1] [--num-steps 600] [--build build]
(run from anywhere; builds nothing: scripts/build.sh first)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--num-steps", type=int, default=600, help="timed steps at the grid's largest accum_steps")
parser.add_argument("--build", default=os.path.join(root, "build"))
args = parser.parse_args()

work = tempfile.mkdtemp(prefix="accumlab-window-vs-cli-")
env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=os.path.join(work, "config"))
common = ["--threads", str(args.threads), "--num-steps", str(args.num_steps)]


def points(path):
    with open(path) as f:
        return {p["effective_batch"]: p["samples_per_sec"] for p in json.load(f)["points"]}


ratios, stalls = {}, []
for r in range(args.rounds):
    gui_json = os.path.join(work, "gui.json")
    out = subprocess.run([os.path.join(args.build, "app/gui/accumlab"), "--autorun", *common,
                          "--export-json", gui_json, "--quit"], env=env, capture_output=True, text=True, check=True)
    stalls += [line.split(":", 1)[1].strip() for line in out.stdout.splitlines() if line.startswith("gui-max-stall-ms")]
    cli_dir = os.path.join(work, "cli")
    subprocess.run([os.path.join(args.build, "app/cli/accumlab-cli"), *common, "--equal-work", "--repeats", "10",
                    "--out-dir", cli_dir], env=env, capture_output=True, check=True)
    gui, cli = points(gui_json), points(os.path.join(cli_dir, "accum-curve.json"))
    for batch in sorted(gui):
        ratios.setdefault(batch, []).append(gui[batch] / cli[batch])
    print("round %d: " % (r + 1) + "  ".join("%d: %.3f" % (b, gui[b] / cli[b]) for b in sorted(gui)), flush=True)
print("window / CLI samples/sec, by effective batch:")
for batch, v in ratios.items():
    print("  %5d  min %.3f  median %.3f  max %.3f" % (batch, min(v), statistics.median(v), max(v)))
every = [x for v in ratios.values() for x in v]
print("median of all %d: %.3f; at 0.95 or more: %d" % (len(every), statistics.median(every), sum(x >= 0.95 for x in every)))
print("worst GUI stall per window run:", "; ".join(stalls))
sys.exit(0)
