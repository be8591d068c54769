"""AccumLab's ranks where PyTorch users start them: torchrun (one node, two nodes) and srun.

Usage: python check_torchrun.py ACCUMLAB_CLI [ACCUMLAB_CLI ...]
(a Python with torch 2.x: its torchrun, `python -m torch.distributed.run`, starts the ranks).

For each CLI given (the build on Debian's LibTorch 1.13 and the one on the wheel's LibTorch: torchrun
is a process of its own, so it starts either):
- one node, two ranks (`--nproc-per-node 2 --no-python`): the main job and `equivalence` end with
  exit 0, and `train` ends on the params_sha256 of AccumLab's own launcher with two ranks;
- two nodes: two torchrun agents on this machine, rendezvous c10d at 127.0.0.1, two ranks each:
  `train` ends on the params_sha256 of AccumLab's launcher with four ranks;
- Slurm: two ranks started by hand with the variables srun sets (SLURM_PROCID, SLURM_NTASKS,
  SLURM_LOCALID, SLURM_NNODES, SLURM_JOB_ID, SLURM_STEP_ID) on loopback: the same params_sha256;
- elastic restarts: `train --checkpoint D --auto-resume` under `--max-restarts 2`, one rank killed
  (SIGKILL) after its first checkpoint: torchrun restarts the group, which resumes from the
  latest whole checkpoint and ends on the params_sha256 of a run never killed.
Every address is loopback, every run is bounded in time. Exits 0 when all hold; prints what
differs otherwise.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

TIMEOUT = 240  # seconds any one run may take
TRAIN = ["train", "--num-steps", "6", "--seed", "5", "--dist-timeout", "60"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(*args):
    return [sys.executable, "-m", "torch.distributed.run", *args]


def last_json(text):
    """The JSON object rank 0 printed (the last line that starts one, to its end)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    found = None
    while start != -1:
        try:
            found, end = decoder.raw_decode(text, start)
            start = text.find("{", end)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    return found


def run(cmd, env=None, what=""):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT,
                       env=env)
    print(f"  {what}: exit {p.returncode} in {time.time() - t0:.1f} s", flush=True)
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:], sep="\n")
    return p


def sha_of(p):
    j = last_json(p.stdout)
    return j.get("params_sha256") if isinstance(j, dict) else None


def base_env():
    env = dict(os.environ)
    for k in list(env):
        if k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT") or k.startswith(
                ("TORCHELASTIC_", "SLURM_", "ACCUMLAB_RUN_ID", "LOCAL_WORLD_SIZE", "GROUP_RANK")):
            del env[k]
    env["OMP_NUM_THREADS"] = "1"
    return env


def check(cli):
    failures = []
    env = base_env()
    print(f"{cli}", flush=True)
    own2 = sha_of(run([cli, *TRAIN, "--world-size", "2"], env, "AccumLab's launcher, 2 ranks"))
    own4 = sha_of(run([cli, *TRAIN, "--world-size", "4"], env, "AccumLab's launcher, 4 ranks"))
    if not own2 or not own4:
        return [f"{cli}: AccumLab's own launcher gave no params_sha256"]

    one_node = ["--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--no-python"]
    for what, args in (("main job", ["--no-write", "--accum-grid", "1,2", "--num-steps", "5"]),
                       ("equivalence", ["equivalence"])):
        p = run(torchrun(*one_node, "--master-port", str(free_port()), cli, *args), env, f"torchrun 1 node: {what}")
        if p.returncode != 0:
            failures.append(f"torchrun one node, {what}: exit {p.returncode}")
    p = run(torchrun(*one_node, "--master-port", str(free_port()), cli, *TRAIN), env, "torchrun 1 node: train")
    if sha_of(p) != own2:
        failures.append(f"torchrun one node, train: params_sha256 {sha_of(p)} != AccumLab's 2 ranks {own2}")

    port = free_port()
    nodes = []
    for node in (0, 1):
        cmd = torchrun("--nnodes", "2", "--node-rank", str(node), "--nproc-per-node", "2", "--rdzv-backend", "c10d",
                       "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", "two-nodes", "--no-python", cli, *TRAIN)
        nodes.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    outs = [n.communicate(timeout=TIMEOUT) for n in nodes]
    codes = [n.returncode for n in nodes]
    print(f"  torchrun 2 nodes: exits {codes}", flush=True)
    shas = [s for s in (last_json(o[0]) for o in outs) if isinstance(s, dict)]
    sha = shas[0].get("params_sha256") if shas else None
    if codes != [0, 0] or sha != own4:
        for o in outs:
            print(o[0][-2000:], o[1][-3000:], sep="\n")
        failures.append(f"torchrun two nodes: exits {codes}, params_sha256 {sha} != AccumLab's 4 ranks {own4}")

    port = free_port()
    ranks = []
    for r in (0, 1):
        e = dict(env, SLURM_PROCID=str(r), SLURM_NTASKS="2", SLURM_LOCALID=str(r), SLURM_NNODES="1",
                 SLURM_NODEID="0", SLURM_JOB_ID="4242", SLURM_STEP_ID="0", MASTER_ADDR="127.0.0.1",
                 MASTER_PORT=str(port))
        ranks.append(subprocess.Popen([cli, *TRAIN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e))
    outs = [r.communicate(timeout=TIMEOUT) for r in ranks]
    codes = [r.returncode for r in ranks]
    sha = sha_of(subprocess.CompletedProcess([], 0, outs[0][0], ""))
    print(f"  Slurm's variables by hand: exits {codes}", flush=True)
    if codes != [0, 0] or sha != own2:
        for o in outs:
            print(o[0][-2000:], o[1][-3000:], sep="\n")
        failures.append(f"srun's variables: exits {codes}, params_sha256 {sha} != AccumLab's 2 ranks {own2}")
    failures += check_restart(cli, env, signal.SIGKILL)
    # A stopped rank answers nothing: its peers give up after --dist-timeout, the attempt ends
    # and torchrun restarts the group (the stopped process is killed with its attempt).
    failures += check_restart(cli, env, signal.SIGSTOP)
    return failures


def check_restart(cli, env, sig=signal.SIGKILL):
    """torchrun --max-restarts: one rank killed (or stopped) mid-run, the group resumes from its checkpoint."""
    steps = ["--num-steps", "400", "--seed", "5", "--dist-timeout", "5"]
    with tempfile.TemporaryDirectory() as whole, tempfile.TemporaryDirectory() as cut:
        never = sha_of(run([cli, "train", *steps, "--world-size", "2", "--checkpoint", whole,
                            "--checkpoint-every-micro", "200"], env, "AccumLab's launcher, never killed"))
        cmd = torchrun("--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
                       "--max-restarts", "2", "--no-python", cli, "train", *steps, "--checkpoint", cut,
                       "--checkpoint-every-micro", "200", "--auto-resume")
        t0 = time.time()
        agent = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                 start_new_session=True)
        killed = False
        while agent.poll() is None and time.time() - t0 < TIMEOUT:
            if not killed and os.path.exists(os.path.join(cut, "latest.json")):
                workers = subprocess.run(["pgrep", "-P", str(agent.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
                if workers:
                    os.kill(int(workers[-1]), sig)
                    killed = True
                    print(f"  {sig.name} to rank process {workers[-1]} after {time.time() - t0:.1f} s", flush=True)
            time.sleep(0.05)
        out, err = agent.communicate(timeout=TIMEOUT)
        report = last_json(out)
        report = report if isinstance(report, dict) else {}
        sha = report.get("params_sha256")
        # A group that started again from step 0 would end on the same parameters: the report
        # must say it continued from a checkpoint.
        resumed = report.get("resumed_from")
        print(f"  torchrun --max-restarts 2, {sig.name} to one rank: exit {agent.returncode} after "
              f"{time.time() - t0:.1f} s, resumed from {resumed}", flush=True)
        if agent.returncode != 0 or not killed or not resumed or sha != never:
            print(out[-2000:], err[-4000:], sep="\n")
            return [f"restart after {sig.name}: exit {agent.returncode}, killed {killed}, resumed from {resumed}, "
                    f"params_sha256 {sha} != never killed {never}"]
    return []


def main():
    failures = []
    for cli in sys.argv[1:]:
        failures += check(cli)
    for f in failures:
        print("FAILED:", f)
    print("torchrun and srun:", "all hold" if not failures else f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
