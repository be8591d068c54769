"""How AccumLab's cost grows with micro-batch and model width, on this machine.

For each hidden width and micro-batch, runs accumlab-cli at accum_steps 8 and reports the
median time per micro-batch (forward + backward), the time per sample and the arithmetic
rate (about 6 x parameters flops per sample for forward + backward of an MLP). While the time
per micro-batch stays near the smallest model's (about 25 operators' dispatch), LibTorch's
per-operator overhead dominates (dispatcher-bound); where it is larger but still flat as the
micro-batch grows, streaming the weights through memory does (memory-bound); once it grows with
the micro-batch, the matrix products do (compute-bound). A measurement, not a test.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ACCUM = 8


def params(in_dim, hidden, classes):
    return in_dim * hidden + hidden + hidden * hidden + hidden + hidden * classes + classes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "build", "app", "cli", "accumlab-cli"))
    ap.add_argument("--hidden", default="128,512,2048")
    ap.add_argument("--micro", default="1,4,16,64,256")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--num-steps", type=int, default=20)
    args = ap.parse_args()

    print(f"lesson MLP (in 64, 16 classes) at accum_steps {ACCUM}, threads {args.threads}, {args.num_steps} steps")
    print(f"{'hidden':>6} {'micro':>5} {'ms/micro-batch':>14} {'us/sample':>10} {'GFLOP/s':>8}  regime")
    floor = None  # the smallest model's time per micro-batch of one sample: dispatch alone
    with tempfile.TemporaryDirectory() as tmp:
        for hidden in (int(h) for h in args.hidden.split(",")):
            base = None
            for micro in (int(m) for m in args.micro.split(",")):
                subprocess.run([args.cli, "--hidden", str(hidden), "--micro-batch", str(micro), "--accum-grid", str(ACCUM),
                                "--num-steps", str(args.num_steps), "--threads", str(args.threads), "--labels", "random",
                                "--out-dir", tmp], check=True, stdout=subprocess.DEVNULL)
                with open(os.path.join(tmp, "accum-curve.json")) as f:
                    point = json.load(f)["points"][0]
                ms_micro = point["median_step_ms"] / ACCUM
                us_sample = 1e3 * ms_micro / micro
                gflops = 6 * params(64, hidden, 16) * micro / (ms_micro * 1e-3) / 1e9
                floor = floor or ms_micro
                base = base or ms_micro
                if ms_micro < 2 * floor:
                    regime = "dispatcher-bound"
                elif ms_micro < 2 * base:
                    regime = "memory-bound"
                else:
                    regime = "compute-bound"
                print(f"{hidden:>6} {micro:>5} {ms_micro:>14.3f} {us_sample:>10.2f} {gflops:>8.2f}  {regime}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
