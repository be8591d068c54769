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
Bad input, each ending in words with a documented exit code, none waiting past its timeout:
- a store that disappears: torchrun's agent (which serves the store on the LibTorch 2.x build) killed
  as its ranks start, and killed mid-run; its orphaned ranks (this script adopts them as a child
  subreaper) end within --dist-timeout, each with exit 0 or 3 and one sentence;
- a second job on the same rendezvous id and endpoint while the first runs: torchrun's rendezvous
  keeps it a spare node while the first runs (measured: its join_timeout does not end that wait),
  and it ends with exit 1 when the first's agent closes the store; it starts no rank, and the first
  trains on, never restarted, to the parameters of a run alone.
Every address is loopback, every run is bounded in time. Exits 0 when all hold; prints what
differs otherwise.
"""
import ctypes
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
    failures += check_store_lost(cli, env, "as the ranks start")
    failures += check_store_lost(cli, env, "mid-run")
    failures += check_same_rendezvous(cli, env)
    return failures


def one_sentence(err):
    """The lines a rank wrote that are not torchrun's own (its agent logs start with '[' or 'W'/'I' and a date)."""
    return [l for l in err.splitlines() if l.strip() and not l.startswith(("[", "W1", "I1", "E1", "W0", "I0", "E0"))
            and "torch.distributed" not in l]


def check_store_lost(cli, env, when):
    """torchrun's agent killed (SIGKILL): its store goes with it on the 2.x build (the ranks' rendezvous)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: the agent's orphaned ranks become this script's children
    steps = ["--num-steps", "400", "--seed", "5", "--dist-timeout", "5"]
    with tempfile.TemporaryDirectory() as ck:
        cmd = torchrun("--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
                       "--no-python", cli, "train", *steps, "--checkpoint", ck, "--checkpoint-every-micro", "200")
        t0 = time.time()
        agent = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        workers = []
        while agent.poll() is None and time.time() - t0 < TIMEOUT:
            workers = subprocess.run(["pgrep", "-P", str(agent.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
            ready = len(workers) == 2 and (when != "mid-run" or os.path.exists(os.path.join(ck, "latest.json")))
            if ready:
                agent.kill()
                agent.wait()  # its ranks are this script's children from here on
                break
            time.sleep(0.01)
        killed_at = time.time() - t0
        codes = {}
        while len(codes) < len(workers) and time.time() - t0 < TIMEOUT:
            for w in workers:
                if int(w) not in codes:
                    pid, status = os.waitpid(int(w), os.WNOHANG)
                    if pid:
                        codes[pid] = os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        took = time.time() - t0 - killed_at
        out, err = agent.communicate(timeout=TIMEOUT)  # the pipes close once the ranks are gone
        said = one_sentence(err)
        print(f"  agent killed {when} ({killed_at:.1f} s): ranks' exits {sorted(codes.values())} {took:.1f} s later; "
              f"they said {said[:2]}", flush=True)
        bad = (len(workers) != 2 or len(codes) != 2 or any(c not in (0, 3) for c in codes.values()) or took > 60
               or any(c == 3 for c in codes.values()) and not said)
        if bad:
            print(out[-2000:], err[-4000:], sep="\n")
            return [f"store lost {when}: ranks {workers}, exits {codes} after {took:.1f} s"]
    return []


def check_same_rendezvous(cli, env):
    """A second torchrun with the first's --rdzv-id and --rdzv-endpoint while the first trains.

    torchrun's own rendezvous decides: the second agent joins the first's store as a spare node and
    waits while the first runs (its join_timeout bounds only the forming of a round), then ends with
    torchrun's exit 1 once the first's store closes; no rank of it starts. The first job trains on,
    never restarted, to the parameters of a run alone."""
    steps = ["--num-steps", "3000", "--seed", "5", "--dist-timeout", "5"]
    port = free_port()
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        never = sha_of(run([cli, "train", *steps, "--world-size", "2"], env, "AccumLab's launcher, alone"))

        def job(ck):
            return torchrun("--nnodes", "1", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                            f"127.0.0.1:{port}", "--rdzv-id", "same-id", "--max-restarts", "2", "--no-python", cli,
                            "train", *steps, "--checkpoint", ck,
                            "--checkpoint-every-micro", "400", "--auto-resume")
        t0 = time.time()
        first = subprocess.Popen(job(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        while first.poll() is None and not os.path.exists(os.path.join(a, "latest.json")) and time.time() - t0 < TIMEOUT:
            time.sleep(0.05)
        t1 = time.time()
        second = subprocess.Popen(job(b), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        out2, err2 = second.communicate(timeout=TIMEOUT)
        took2 = time.time() - t1
        first_running = first.poll() is None
        out1, err1 = first.communicate(timeout=TIMEOUT)
        report = last_json(out1)
        report = report if isinstance(report, dict) else {}
        print(f"  second job on the first's rendezvous id: exit {second.returncode} after {took2:.1f} s (first still "
              f"running: {first_running}), started no rank: {last_json(out2) is None and not os.listdir(b)}; first: exit "
              f"{first.returncode}, resumed from {report.get('resumed_from')}, params_sha256 "
              f"{'= a run alone' if report.get('params_sha256') == never else report.get('params_sha256')}", flush=True)
        if (second.returncode == 0 or last_json(out2) is not None or os.listdir(b) or
                first.returncode != 0 or report.get("resumed_from") or report.get("params_sha256") != never):
            print(out1[-2000:], err1[-3000:], out2[-2000:], err2[-3000:], sep="\n")
            return [f"second job on the same rendezvous: exits {first.returncode}, {second.returncode}; "
                    f"first resumed from {report.get('resumed_from')}, params_sha256 {report.get('params_sha256')} "
                    f"(alone: {never})"]
    return []


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
