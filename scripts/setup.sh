#!/usr/bin/env bash
# Create .venv and install rlgpt-tui with its test tools. Safe to run again.
# On a machine with an NVIDIA GPU it also installs the `gpu` extra (JAX with CUDA 12, so that
# Craftax runs on the GPU); RLGPT_GPU=0 skips it, RLGPT_GPU=1 installs it without a GPU check.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
EXTRAS=test
if [ "${RLGPT_GPU:-}" = 1 ] || { [ -z "${RLGPT_GPU:-}" ] && nvidia-smi -L > /dev/null 2>&1; }; then
  EXTRAS=test,gpu
  echo "setup: an NVIDIA GPU: installing the gpu extra (JAX with CUDA 12; RLGPT_GPU=0 skips it)"
fi
# torch first, pinned: a CPU wheel found locally; an unpinned torch pulls a multi-GB CUDA build.
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"
# Craftax writes its texture cache into its package on first use; made here once, so that two
# test workers never read it while the other is still writing it (an EOFError in CI)
.venv/bin/python -c "from craftax.craftax_classic.constants import load_all_textures as t; t()" \
  > /dev/null
echo "setup: done; \`.venv/bin/rlgpt-tui doctor\` checks the installation and names its devices"
