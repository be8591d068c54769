"""The code on the Lab's code panel, run with PyTorch against AccumLab's engine.

Usage: python3 check_loop_code.py ACCUMLAB_CLI
(Debian's /usr/bin/python3 with python3-torch, which the test command installs; any PyTorch
works. The loss scaler's variants need torch.amp.GradScaler("cpu"), PyTorch 2.3 or later: with
an older one they are listed as skipped, and the test command's LibTorch 2.x stage runs them with
the wheel's PyTorch.)

For every variant the panel can show (the correct loop, the two teaching bugs, each bug of
the zoo, clipping, a warmup schedule, momentum and AdamW, float64, the data-parallel form with
model.no_sync(), the dynamic loss scaler and its pitfalls), asks `accumlab-cli loop-code --json`
for the listing and `--record FILE` for a run of the engine with the same settings: its parameters before and after, its gradient buffers at
the end, and the samples of every window as the model saw them. Builds the same model in
torch.nn, loads the initial parameters, runs the listing's source exactly as the panel shows it
(exec, in English and in Persian, whose comments differ), and compares the parameters and
gradients with the engine's. A listing that leaves out a planted bug's line, or writes it
elsewhere than the engine runs it, ends elsewhere and fails. Where the engine refuses a pitfall
(unscale_() twice, update() with no inf check), the listing must raise in PyTorch with the
engine's words. Exits 0 when every variant holds.
"""
import contextlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import warnings

try:
    import torch
    import torch.distributed as dist
except ImportError:  # CTest reads 77 as skipped; the test command installs python3-torch
    print("check_loop_code: no torch in this Python (Debian: apt-get install python3-torch)")
    sys.exit(77)

from accumlab_model import Mlp

WINDOWS = 3

VARIANTS = [
    [],
    ["--scaling", "none"],
    ["--step-every-micro"],
    ["--bug", "zero-every-micro"],
    ["--bug", "never-zero"],
    ["--bug", "divide-by-n-plus-1"],
    ["--bug", "skip-last-micro"],
    ["--bug", "count-micro-twice"],
    ["--bug", "clip-each-micro"],
    ["--bug", "schedule-every-micro"],
    ["--bug", "schedule-every-micro", "--clip-norm", "0.5"],
    ["--bug", "clip-each-micro", "--step-every-micro"],
    ["--clip-norm", "0.5"],
    ["--clip-norm", "0.5", "--step-every-micro"],
    ["--lr-warmup", "3", "--optimizer", "momentum"],
    ["--optimizer", "adamw", "--accum-steps", "3", "--micro-batch", "5"],
    ["--optimizer", "momentum", "--dtype", "float64", "--bug", "count-micro-twice"],
    ["--data-parallel"],
    ["--data-parallel", "--optimizer", "adamw", "--clip-norm", "0.5"],
    ["--accum-steps", "1", "--scaling", "none"],
    # The scaler: float32 scales by powers of two, exactly, and nothing overflows, so these end
    # where the loop without it ends unless a step, a schedule or a clip is out of place (a clip
    # before unscale_ clips the scaled sum); an update() out of place only moves the scale.
    ["--loss-scaling", "--scaler-growth-interval", "1"],
    ["--loss-scaling", "--clip-norm", "0.5", "--lr-warmup", "3", "--optimizer", "adamw"],
    ["--loss-scaling", "--data-parallel", "--optimizer", "momentum", "--scaler-growth-interval", "2"],
    # The scaler's pitfalls. Dropping an overflowed micro-batch and logging the scaled loss end
    # where the engine ends (nothing overflows in float32); unscale_() after every micro-batch
    # is allowed once per window (N = 1), and refused at k = 1 otherwise; update() after every
    # micro-batch is refused at k = 0. A refused loop is refused by both, in the same words.
    ["--loss-scaling", "--scaler-bug", "skip-overflowed-micro", "--scaler-growth-interval", "1"],
    ["--loss-scaling", "--scaler-bug", "skip-overflowed-micro", "--data-parallel", "--optimizer", "adamw"],
    ["--loss-scaling", "--scaler-bug", "log-scaled-loss"],
    ["--loss-scaling", "--scaler-bug", "unscale-every-micro", "--accum-steps", "1", "--clip-norm", "0.5"],
    ["--loss-scaling", "--scaler-bug", "unscale-every-micro", "--clip-norm", "0.5"],
    ["--loss-scaling", "--scaler-bug", "update-every-micro"],
]

# The variants PyTorch refuses: the engine's refusal, and the exception PyTorch raises with it.
REFUSED = {"unscale-every-micro": RuntimeError, "update-every-micro": AssertionError}


def without_scaler_bug(args):
    i = args.index("--scaler-bug")
    return args[:i] + args[i + 2:]


def has_cpu_grad_scaler():
    """torch.amp.GradScaler("cpu") (PyTorch 2.3 and later)."""
    try:
        torch.amp.GradScaler("cpu")
        return True
    except (AttributeError, TypeError, RuntimeError):
        return False


DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    meta = header.pop("__metadata__", {})
    base = 8 + length
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = bytearray(data[base + begin:base + end])
        tensors[name] = torch.frombuffer(raw, dtype=DTYPES[info["dtype"]]).reshape(info["shape"]).clone()
    return tensors, meta


def run_listing(source, tensors, meta, data_parallel):
    """Runs the panel's source on a model holding the run's initial parameters; returns it."""
    config = json.loads(meta["config"])
    model = Mlp(int(meta["in_features"]), int(meta["hidden"]), int(meta["classes"]))
    model = model.to(tensors["init.fc1.weight"].dtype)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(tensors["init." + name])
    micro, accum = config["micro_batch"], config["accum_steps"]
    x, y = tensors["x"], tensors["y"]
    per_window = micro * accum
    windows = [[(x[w * per_window + k * micro:w * per_window + (k + 1) * micro],
                 y[w * per_window + k * micro:w * per_window + (k + 1) * micro]) for k in range(accum)]
               for w in range(int(meta["windows"]))]
    if data_parallel:
        model = torch.nn.parallel.DistributedDataParallel(model)
    names = {"torch": torch, "contextlib": contextlib, "model": model, "windows": windows}
    with torch.random.fork_rng(), warnings.catch_warnings():
        # The schedule-every-micro bug calls scheduler.step() before the first optimizer.step(),
        # which PyTorch warns about: the warning is the bug's, expected here.
        warnings.filterwarnings("ignore", message="Detected call of `lr_scheduler.step()` before")
        exec(compile(source, "<the code panel>", "exec"), names)
    return model.module if data_parallel else model


def max_diff(module, tensors, prefix, of_grad):
    worst = 0.0
    for name, p in module.named_parameters():
        mine = p.grad if of_grad else p.detach()
        if mine is None:
            mine = torch.zeros_like(p)
        worst = max(worst, (mine.double() - tensors[prefix + name].double()).abs().max().item())
    return worst


def main(cli):
    failures = []
    skipped = []
    torch.set_num_threads(1)
    scaler_runs = has_cpu_grad_scaler()
    with tempfile.TemporaryDirectory() as tmp:
        # The data-parallel form runs under a process group of one rank (Gloo): DDP's no_sync()
        # and its all-reduce after the last backward are real; with one rank the mean is the sum.
        dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "rendezvous"), rank=0, world_size=1)
        for args in VARIANTS:
            if "--loss-scaling" in args and not scaler_runs:
                skipped.append(" ".join(args))
                print(f"{' '.join(args):60s} skipped: PyTorch {torch.__version__} has no torch.amp.GradScaler('cpu')")
                continue
            record = os.path.join(tmp, "run.safetensors")
            label = " ".join(args) or "correct"
            env = dict(os.environ, OMP_NUM_THREADS="1")
            base = [cli, "loop-code", "--json", "--num-steps", str(WINDOWS)]
            sources = {}
            for lang in ("en", "fa"):
                run = subprocess.run(base + ["--lang", lang] + args, capture_output=True, text=True, env=env)
                if run.returncode != 0:
                    failures.append(f"{label}: exit {run.returncode}: {run.stderr.strip()}")
                    break
                listing = json.loads(run.stdout)
                sources[lang] = listing["source"]
            if len(sources) != 2:
                continue
            if not listing["shown_as_run"]:
                failures.append(f"{label}: the panel would not show this run's code: {listing['caveat']}")
                continue
            run = subprocess.run(base + ["--record", record] + args, capture_output=True, text=True, env=env)
            refusal = None
            if run.returncode != 0:
                pitfall = args[args.index("--scaler-bug") + 1] if "--scaler-bug" in args else None
                if pitfall not in REFUSED:
                    failures.append(f"{label}: --record: exit {run.returncode}: {run.stderr.strip()}")
                    continue
                # The engine refused the loop: PyTorch must raise the same words on the same run's
                # model and samples (those of the loop without the pitfall).
                refusal = run.stderr.strip().split("error: ", 1)[-1]
                run = subprocess.run(base + ["--record", record] + without_scaler_bug(args), capture_output=True,
                                     text=True, env=env)
                if run.returncode != 0:
                    failures.append(f"{label}: --record without the pitfall: exit {run.returncode}: {run.stderr.strip()}")
                    continue
            tensors, meta = read_safetensors(record)
            dtype = tensors["init.fc1.weight"].dtype
            tol = 1e-12 if dtype == torch.float64 else 2e-6
            for lang, source in sources.items():
                if refusal is not None:
                    try:
                        run_listing(source, tensors, meta, "--data-parallel" in args)
                        raised = None
                    except REFUSED[pitfall] as e:
                        raised = str(e)
                    status = "ok" if raised is not None and refusal in raised else "DIFFERS"
                    print(f"{label:60s} [{lang}] the engine refuses \"{refusal}\"; PyTorch raises \"{raised}\"  {status}")
                    if status != "ok":
                        failures.append(f"{label} [{lang}]: the engine refuses \"{refusal}\", PyTorch raised {raised!r}")
                    continue
                model = run_listing(source, tensors, meta, "--data-parallel" in args)
                dp = max_diff(model, tensors, "final.", of_grad=False)
                dg = max_diff(model, tensors, "grad.", of_grad=True)
                status = "ok" if dp <= tol and dg <= tol else "DIFFERS"
                print(f"{label:60s} [{lang}] max |param diff| {dp:.3g}, max |grad diff| {dg:.3g}  {status}")
                if status != "ok":
                    failures.append(f"{label} [{lang}]: param diff {dp:.3g}, grad diff {dg:.3g} (bound {tol:g})\n{source}")
        dist.destroy_process_group()
    for f in failures:
        print("FAIL:", f)
    ran = len(VARIANTS) - len(skipped)
    print(f"{ran - len(failures)} of {ran} variants: the code on screen ends where the engine ends"
          + (f" ({len(skipped)} skipped)" if skipped else "") if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
