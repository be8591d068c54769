"""The out-of-memory demo's memory snapshot, read by PyTorch's own memory visualiser.

Usage: python check_memory_snapshot.py ACCUMLAB_CLI
(the Python of a PyTorch 2.x install: the test command's virtual environment).

Runs `accumlab-cli oom-demo --timeline T --snapshot S`, then opens S with pickle as
torch.cuda._memory_viz's command line does, renders it with that module's own trace(),
trace_plot(), segment_plot() and segsum(), and checks that what PyTorch reads is AccumLab's
figures: for each run (device 0 the full batch, device 1 the accumulation) the trace's events
are the timeline's, the peak and
the final bytes PyTorch's replay reaches are the timeline's peak and end above its start, the
full batch holds the "oom" where the budget refused it, every event names its phase, and the
segments are what each run's trace leaves allocated.
Exits 0 when all hold; prints what differs otherwise.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile

from torch.cuda import _memory_viz


def main(cli):
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        timeline_path = os.path.join(tmp, "memory-timeline.json")
        snapshot_path = os.path.join(tmp, "memory-snapshot.pickle")
        run = subprocess.run(
            [cli, "oom-demo", "--device", "cpu", "--timeline", timeline_path, "--snapshot", snapshot_path],
            capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        if run.returncode != 0:
            print(run.stdout + run.stderr)
            return 1
        with open(timeline_path) as f:
            timeline = json.load(f)
        with open(snapshot_path, "rb") as f:
            snapshot = pickle.load(f)  # as _memory_viz's command line reads it

    text = _memory_viz.trace(snapshot)
    html = _memory_viz.trace_plot(snapshot)
    check(html.lstrip().startswith("<!DOCTYPE html>") or "<html>" in html, "trace_plot rendered no page")
    # trace() writes "<n> entries" per device it lists (its "TOTAL MEM" line is not a total: the
    # loop's index overwrites its running count).
    listed = [int(line.split()[0]) for line in text.splitlines() if line.endswith(" entries")]
    traces = snapshot["device_traces"]
    runs = timeline["runs"]
    check(len(traces) == len(runs) == 2, f"{len(traces)} traces for {len(runs)} runs")
    check(listed == [len(t) for t in traces], f"trace() listed {listed} entries")
    for i, (trace, run_) in enumerate(zip(traces, runs)):
        events = run_["events"]
        deltas, live = events["delta_bytes"], events["live_bytes"]
        refused = run_["refused_event"]
        # PyTorch's replay of its trace: + each alloc, - each completed free (as trace() counts).
        count, peak = 0, 0
        replayed = []
        for e in trace:
            if e["action"] == "alloc":
                count += e["size"]
                replayed.append(e["size"])
            elif e["action"] == "free_completed":
                count -= e["size"]
                replayed.append(-e["size"])
            elif e["action"] == "oom":
                replayed.append(("oom", e["size"]))
            peak = max(peak, count)
        expected = [("oom", d) if j == refused else d for j, d in enumerate(deltas)]
        check(replayed == expected, f"run {i}: the trace's events are not the timeline's")
        accepted = [v for j, v in enumerate(live) if j != refused]
        start = run_["start_bytes"]
        check(peak == max([start] + accepted) - start,
              f"run {i}: PyTorch's peak {peak} is not AccumLab's {max([start] + accepted) - start}")
        check(peak == run_["peak_bytes"] - start, f"run {i}: peak {peak} vs peak_bytes {run_['peak_bytes']} - {start}")
        final = (accepted[-1] if accepted else start) - start
        check(count == final, f"run {i}: PyTorch's replay ends at {count}, AccumLab's timeline at {final}")
        names = {f["name"] for e in trace for f in e["frames"]}
        check(any(n.startswith("forward") for n in names) and any(n.startswith("backward") for n in names),
              f"run {i}: phases missing from the frames: {sorted(names)[:5]}")
    check(any(e["action"] == "oom" for e in traces[0]) == (runs[0]["refused_event"] is not None),
          "the full batch's oom and the timeline disagree")
    # Segments: every CPU block is its own malloc, so each alloc has its segment_alloc just before
    # it and each free its segment_free just after, and `segments` is what each run's trace leaves
    # allocated at its end, by device; the visualiser's segment view and segsum() read them.
    for i, trace in enumerate(traces):
        left = {}
        for j, e in enumerate(trace):
            if e["action"] == "alloc":
                prev = trace[j - 1] if j > 0 else {}
                check(prev.get("action") == "segment_alloc" and (prev["addr"], prev["size"]) == (e["addr"], e["size"]),
                      f"run {i}: alloc at entry {j} without its segment_alloc")
                left[e["addr"]] = e["size"]
            elif e["action"] == "free_completed":
                nxt = trace[j + 1] if j + 1 < len(trace) else {}
                check(nxt.get("action") == "segment_free" and (nxt["addr"], nxt["size"]) == (e["addr"], e["size"]),
                      f"run {i}: free at entry {j} without its segment_free")
                left.pop(e["addr"], None)
        segments = {seg["address"]: seg["total_size"] for seg in snapshot["segments"] if seg["device"] == i}
        check(segments == left, f"run {i}: {len(segments)} segments at the end, the trace leaves {len(left)} blocks")
        check(all(b["state"] == "active_allocated" and b["size"] == seg["total_size"]
                  for seg in snapshot["segments"] for b in seg["blocks"]), "a segment's block is not the segment")
    summary = _memory_viz.segsum(snapshot)
    check("Summary of segments" in summary, "segsum() summed nothing")
    seg_html = _memory_viz.segment_plot(snapshot)
    check("Allocator State History" in seg_html, "segment_plot rendered no page")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"PyTorch's _memory_viz read AccumLab's snapshot: {len(traces[0])} + {len(traces[1])} trace entries, "
              f"peaks {runs[0]['peak_bytes'] - runs[0]['start_bytes']} and {runs[1]['peak_bytes'] - runs[1]['start_bytes']} "
              f"bytes above the floor, as AccumLab measured")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
