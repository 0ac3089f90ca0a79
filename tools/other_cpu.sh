#!/usr/bin/env bash
# Strict nbval of notebooks as another CPU would run them: the default (non-vectorised) ATen kernels, oneDNN
# limited to SSE4.1, MKL to SSE4.2, and one thread. These switches change the floats of training on this machine
# (they simulate an older x86-64 CPU); outputs stored from an AVX-512 or AVX2 CPU at any thread count must still
# match. Usage: bash tools/other_cpu.sh [notebook paths]   (default: every notebook); THREADS=3 for another count.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || set -- notebooks
export ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=SSE41 MKL_ENABLE_INSTRUCTIONS=SSE4_2
export OMP_NUM_THREADS="${THREADS:-1}" MKL_NUM_THREADS="${THREADS:-1}"
echo "simulated CPU: ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA" \
     "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS, $OMP_NUM_THREADS thread(s)"
exec .venv/bin/python -m pytest -q "$@"
