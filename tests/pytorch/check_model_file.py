"""The trained model AccumLab exports, read by the safetensors package and torch.

Usage: python check_model_file.py ACCUMLAB_CLI
(the Python of a PyTorch 2.x install with the safetensors package: the test command's virtual
environment).

For a few runs (SGD, momentum, AdamW; float32 and float64) runs
`accumlab-cli train --export-model F`, loads F with safetensors.torch.load_file, puts it into a
torch.nn.Module built from the file's metadata (three nn.Linear layers named fc1..fc3, as
docs/ranks-and-checkpoints.md's "The model file" shows) with load_state_dict(strict=True), and checks that the
module's parameters, hashed in registration order, are the run's params_sha256, and that the
metadata names the run. Exits 0 when all hold; prints what differs otherwise.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import torch
from safetensors import safe_open
from safetensors.torch import load_file

from accumlab_model import Mlp

RUNS = [
    ["--optimizer", "sgd"],
    ["--optimizer", "momentum", "--dtype", "float64"],
    ["--optimizer", "adamw", "--accum-steps", "3", "--micro-batch", "5"],
]


def main(cli):
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, args in enumerate(RUNS):
            path = os.path.join(tmp, f"model-{i}.safetensors")
            run = subprocess.run([cli, "train", "--num-steps", "4", "--export-model", path] + args,
                                 capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
            if run.returncode != 0:
                print(run.stdout + run.stderr)
                return 1
            report = json.loads(run.stdout)
            with safe_open(path, framework="pt") as f:
                meta = f.metadata()
            model = Mlp(int(meta["in_features"]), int(meta["hidden"]), int(meta["classes"]))
            state = load_file(path)
            dtype = next(iter(state.values())).dtype
            model.to(dtype).load_state_dict(state, strict=True)
            flat = b"".join(p.detach().contiguous().numpy().tobytes() for p in model.parameters())
            sha = hashlib.sha256(flat).hexdigest()
            config = json.loads(meta["config"])
            name = " ".join(args)
            if meta.get("format") != "accumlab-model" or meta.get("version") != "1":
                failures.append(f"{name}: format {meta.get('format')} version {meta.get('version')}")
            if sha != report["params_sha256"] or meta["params_sha256"] != report["params_sha256"]:
                failures.append(f"{name}: the loaded module hashes to {sha}, the run to {report['params_sha256']}")
            if config["optimizer"] != args[1] or int(meta["windows_done"]) != report["windows"]:
                failures.append(f"{name}: the metadata names another run ({config['optimizer']}, {meta['windows_done']} windows)")
            with torch.no_grad():
                logits = model(torch.zeros(2, int(meta["in_features"]), dtype=dtype))
            if tuple(logits.shape) != (2, int(meta["classes"])) or not torch.isfinite(logits).all():
                failures.append(f"{name}: the module's forward gave {tuple(logits.shape)}")
            print(f"{name}: {len(state)} tensors ({dtype}), params_sha256 {sha[:16]}... as the run's")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"safetensors and torch read AccumLab's model file: {len(RUNS)} runs, load_state_dict(strict=True), params_sha256 equal")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
