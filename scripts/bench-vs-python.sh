#!/usr/bin/env bash
# Speed, side by side: accumlab-cli against the lesson's loop in PyTorch, one thread, rounds in
# rotating order. Prints figures, spreads and ratios; never fails on a timing.
#   scripts/bench-vs-python.sh [args]          AccumLab (Debian's LibTorch 1.13) against
#                                              Debian's python3-torch 1.13
#   scripts/bench-vs-python.sh --torch2 [args] AccumLab on LibTorch 1.13 and on LibTorch 2.x
#                                              (build-torch2, scripts/torch2-check.sh) against
#                                              PyTorch 2.x eager and torch.compile (.venv-torch2)
# Other arguments go to scripts/bench/compare_python.py (e.g. --rounds 5 --num-steps 400
# --micro-batch 16 --hidden 512).
set -euo pipefail
cd "$(dirname "$0")/.."
torch2=0
if [[ ${1:-} == --torch2 ]]; then
  torch2=1
  shift
fi
ACCUMLAB_SETUP_EXTRA=python3-torch scripts/setup.sh >&2
scripts/build.sh >/dev/null
if ((torch2 == 0)); then
  exec /usr/bin/python3 scripts/bench/compare_python.py --peer accumlab=cli:build/app/cli/accumlab-cli \
    --peer pytorch-1.13=eager:/usr/bin/python3 "$@"
fi
[[ -x build-torch2/app/cli/accumlab-cli && -x .venv-torch2/bin/python ]] || scripts/torch2-check.sh -R '^portable\.version' >&2
cmake --build build-torch2 --target accumlab-cli >/dev/null
exec /usr/bin/python3 scripts/bench/compare_python.py \
  --peer accumlab-2.x=cli:build-torch2/app/cli/accumlab-cli \
  --peer accumlab-1.13=cli:build/app/cli/accumlab-cli \
  --peer pytorch-2.x=eager:.venv-torch2/bin/python \
  --peer compile-2.x=compile:.venv-torch2/bin/python "$@"
