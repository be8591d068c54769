"""docs/ranks-and-checkpoints.md's "Continuing a checkpoint in PyTorch", run as it stands there.

Usage: python check_checkpoint.py ACCUMLAB_CLI DOC (docs/ranks-and-checkpoints.md)
(a Python with torch and the safetensors package).

For SGD, momentum and AdamW (with a warmup), each saved inside a window (the run stopped after
micro-batch 6 of 4-micro windows, by the fault hook ACCUMLAB_FAULT_KILL_AT_MICRO) and at a
window's end (a run of 2 windows), loads the latest checkpoint with the doc's continue_run,
continues to 4 windows and compares the parameters' SHA-256 (fc1.weight .. fc3.bias in order,
as AccumLab hashes them) with `accumlab-cli train --num-steps 4`'s params_sha256. The hashes are
equal where this torch is the LibTorch AccumLab was built with; another build of torch (another
BLAS) sums in another order, so there the parameters must agree within float32 rounding
(--tolerance). Exits 0 when every run holds; prints what differs otherwise.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file
except ImportError:  # CTest reads 77 as skipped: Debian ships no safetensors for its python3-torch
    print("skipped: this Python has no torch or no safetensors package")
    sys.exit(77)

RUNS = [
    ["--optimizer", "sgd", "--lr", "0.1"],
    ["--optimizer", "momentum", "--lr", "0.1", "--labels", "teacher"],
    ["--optimizer", "adamw", "--lr", "0.01", "--lr-warmup", "3"],
]
TOTAL_WINDOWS = 4


def example(readme):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- continue-example -->\n```python\n(.*?)```", text, re.S)
    if not m:
        sys.exit("the doc has no continue-example block")
    scope = {}
    exec(compile(m.group(1), "continue-example", "exec"), scope)
    return scope["continue_run"]


def train(cli, args, env=None):
    run = subprocess.run([cli, "train", "--device", "cpu", "--seed", "5"] + args, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1", **(env or {})))
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("readme")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="compare parameters within this bound instead of their hash (another torch build)")
    o = parser.parse_args()
    continue_run = example(o.readme)
    torch.set_num_threads(1)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, args in enumerate(RUNS):
            straight = train(o.cli, args + ["--num-steps", str(TOTAL_WINDOWS), "--export-model",
                                            os.path.join(tmp, f"straight-{i}.safetensors")])
            if straight.returncode != 0:
                print(straight.stdout + straight.stderr)
                return 1
            want = json.loads(straight.stdout)["params_sha256"]
            reference = load_file(os.path.join(tmp, f"straight-{i}.safetensors"))
            for where in ("inside a window", "at a window's end"):
                ck = os.path.join(tmp, f"ck-{i}-{len(where)}")
                if where == "inside a window":
                    run = train(o.cli, args + ["--num-steps", str(TOTAL_WINDOWS), "--checkpoint", ck,
                                               "--checkpoint-every-micro", "6"],
                                {"ACCUMLAB_FAULT_KILL_AT_MICRO": "6"})
                else:
                    run = train(o.cli, args + ["--num-steps", "2", "--checkpoint", ck])
                latest = json.load(open(os.path.join(ck, "latest.json")))
                path = os.path.join(ck, latest["generation"], "rank-0.safetensors")
                with safe_open(path, "pt") as f:
                    manifest = json.loads(f.metadata()["manifest"])
                if manifest["window"]["open"] != (where == "inside a window"):
                    failures.append(f"{' '.join(args)} {where}: the checkpoint's window is "
                                    f"{'open' if manifest['window']['open'] else 'closed'} (exit {run.returncode})")
                    continue
                model = continue_run(path, TOTAL_WINDOWS - manifest["shared"]["windows_done"])
                flat = b"".join(p.detach().contiguous().numpy().tobytes() for p in model.parameters())
                got = hashlib.sha256(flat).hexdigest()
                diff = max((p.detach() - reference[n]).abs().max().item() for n, p in model.named_parameters())
                name = f"{' '.join(args)}, {where} (micro-batch {manifest['micro_batches']})"
                ok = got == want if o.tolerance is None else diff <= o.tolerance
                print(f"{'ok' if ok else 'DIFFERS'}  {name}: sha {got[:12]} vs {want[:12]}, max |diff| {diff:.3g}")
                if not ok:
                    failures.append(f"{name}: continued to {got}, the uninterrupted run {want} (max |diff| {diff:.3g})")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
