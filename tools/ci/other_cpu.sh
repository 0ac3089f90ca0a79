#!/usr/bin/env bash
# Strict nbval of notebooks as another CPU would run them (tools/ci/other_cpu.env: the default non-vectorised ATen
# kernels, oneDNN and MKL limited to AVX, one thread). Outputs stored from an AVX-512 or AVX2 CPU at any
# thread count must still match. Usage: bash tools/ci/other_cpu.sh [notebook paths]  (default: every notebook);
# THREADS=3 bash tools/ci/other_cpu.sh ... for another thread count.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$#" -gt 0 ] || set -- notebooks
source tools/ci/other_cpu.env
echo "simulated CPU: ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA" \
     "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS, $OMP_NUM_THREADS thread(s)"
exec .venv/bin/python -m pytest -q "$@"
