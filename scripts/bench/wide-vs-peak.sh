#!/usr/bin/env bash
# The wide model against the BLAS it runs on: for each build (Debian's LibTorch 1.13 with
# OpenBLAS in build/, the wheel's LibTorch 2.x with oneMKL in build-torch2/ where built) and
# one and two threads, the wide preset's sweep point at micro-batch 64 and 256 (accum 4, float32)
# and, in the same round, that LibTorch's matmul peak (scripts/bench/roofline.py on the Python
# whose torch shares the build's BLAS: Debian's python3-torch, the wheel). Each round's share of
# the peak is that round's FLOP/s over that round's peak; the table gives the median over the
# rounds and their min-max. A measurement, not a test.
# Usage: scripts/bench/wide-vs-peak.sh [num-steps (default 4)] [rounds (default 3)]
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=${1:-4}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
builds=("build:/usr/bin/python3")
[[ -x build-torch2/app/cli/accumlab-cli && -x .venv-torch2/bin/python ]] && builds+=("build-torch2:.venv-torch2/bin/python")
for ((round = 1; round <= rounds; round++)); do
  for b in "${builds[@]}"; do
    dir=${b%%:*} python=${b#*:}
    for threads in 1 2; do
      curves=()
      for micro in 64 256; do
        out="$tmp/$round/$dir-$threads-$micro"
        "$dir/app/cli/accumlab-cli" --model wide --micro-batch "$micro" --accum-grid 4 --num-steps "$steps" \
          --warmup-steps 1 --repeats 3 --threads "$threads" --out-dir "$out" >/dev/null
        curves+=("$out/accum-curve.json")
      done
      "$python" scripts/bench/roofline.py --device cpu --dtype float32 --size 2048 --iters 5 --threads "$threads" \
        "${curves[@]}" > "$tmp/$round/$dir-$threads.txt"
    done
  done
  echo "round $round of $rounds done" >&2
done
/usr/bin/python3 - "$tmp" "$rounds" <<'EOF'
import re, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
cells = {}  # (build, threads) -> {"peak": [...], micro: {"rate": [...], "share": [...]}}
for r in range(1, rounds + 1):
    for build, name in (("build", "LibTorch 1.13 (OpenBLAS)"), ("build-torch2", "LibTorch 2.x (oneMKL)")):
        for threads in (1, 2):
            try:
                text = open(f"{tmp}/{r}/{build}-{threads}.txt").read()
            except FileNotFoundError:
                continue
            cell = cells.setdefault((name, threads), {"peak": []})
            cell["peak"].append(1e3 * float(re.search(r"([\d.]+) TFLOP/s", text).group(1)))
            for m in re.finditer(r"^\| \S+ \| float32 \| (\d+) \| 4 \| ([\d.]+) \| [\d.]+ \| ([\d.]+) \| (\d+)% \|$", text, re.M):
                micro = cell.setdefault(int(m.group(1)), {"rate": [], "gflops": []})
                micro["rate"].append(float(m.group(2)))
                micro["gflops"].append(1e3 * float(m.group(3)))
def spread(values, fmt):
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}-{fmt(max(values))}]"
print(f"median [min-max] over {rounds} rounds; the share of the peak is each round's FLOP/s over its own peak")
print("| build, threads | matmul peak GFLOP/s | micro 64 samples/sec | of the peak | micro 256 samples/sec | of the peak |")
print("|---|---|---|---|---|---|")
for (name, threads), cell in cells.items():
    row = [f"{name}, {threads}", spread(cell["peak"], lambda v: f"{v:.0f}")]
    for micro in (64, 256):
        shares = [100 * g / p for g, p in zip(cell[micro]["gflops"], cell["peak"])]
        row += [spread(cell[micro]["rate"], lambda v: f"{v:,.0f}"), spread(shares, lambda v: f"{v:.0f}%")]
    print("| " + " | ".join(row) + " |")
EOF
