#!/usr/bin/env bash
# The unit tests and strict nbval of every notebook of the Chinese edition on a second supported Python (3.13 by
# default). The main test suite runs the unit tests and compares the English notebooks' stored outputs on .venv's
# Python (3.11 in CI) at the machine's own instruction set; this lane runs the same unit tests on the second Python
# (one thread, the machine's own instruction set), then compares the Chinese twins' outputs on it as another x86-64
# CPU with one thread (tools/other_cpu.env: the default ATen kernels, oneDNN and MKL limited to AVX). A
# Chinese notebook holds the English one's code token for token and its outputs with the printed words translated
# (tests/test_translate.py), so every stored output is proven on two Pythons, two instruction sets and two thread
# counts, every Chinese notebook, run from notebooks/zh/, prints what it stores, and every unit test passes at both
# ends of the supported range of Pythons. The simulated CPU is for the notebooks, whose stored outputs it checks:
# it slows PyTorch's convolutions (notebook 06: 54 CPU-seconds natively, 79 simulated), and no unit test compares
# a float that depends on the instruction set. It builds .venv-py313 with tools/setup.sh first (safe
# to run again).
# Left to the main suite, for CI's 15 minutes: the handout's test (tests/test_student_edition.py), which builds the
# handout's own environment with the README's command and so with the `python3` on PATH, whichever Python runs the
# test (here it would repeat the main suite's run to the letter), and the nbgrader course's tests
# (tests/test_nbgrader_course.py: about 115 CPU-seconds of nbgrader's own commands and kernels). The README's whole
# test command on 3.12 and 3.13, these included, is recorded in benchmarks/RESULTS.md.
# Usage: bash tools/other_python.sh [pytest arguments]   (default: the unit tests, then every Chinese notebook; with
#                                                         arguments, those alone, on the simulated CPU)
#        OTHER_PYTHON=3.12 bash tools/other_python.sh      another version: 3.11, 3.12 or 3.13
#        OTHER_PYTHON_BIN=/path/to/python3.13 bash ...     an interpreter that is not on PATH or in pyenv
set -euo pipefail
cd "$(dirname "$0")/.."
version="${OTHER_PYTHON:-3.13}"
python="${OTHER_PYTHON_BIN:-}"
if [ -z "$python" ]; then
  # python3.13 on PATH, else pyenv's (its shim fails unless that version is selected, so ask its folder directly)
  candidates=("python$version")
  if command -v pyenv >/dev/null; then
    for dir in "$(pyenv root)/versions/$version"*; do candidates+=("$dir/bin/python$version"); done
  fi
  for candidate in "${candidates[@]}"; do
    if "$candidate" -c 'import sys, venv' >/dev/null 2>&1; then python="$candidate"; break; fi
  done
fi
if [ -z "$python" ]; then
  echo "tools/other_python.sh: Python $version was not found, and this lane needs it (it is never skipped)." >&2
  echo "Fix: install it (\`pyenv install $version\`, or your system's python$version package), or set" \
       "OTHER_PYTHON_BIN to its path, or OTHER_PYTHON to another of 3.11, 3.12, 3.13 that you have." >&2
  exit 1
fi
venv=".venv-py${version//./}"
PYTHON="$python" VENV="$venv" bash tools/setup.sh
simulated() {  # strict pytest of "$@" on the simulated CPU
  (
    source tools/other_cpu.env
    echo "Python $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])'), simulated CPU:" \
         "ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA" \
         "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS, $OMP_NUM_THREADS thread(s)"
    exec "$venv/bin/python" -m pytest -q "$@"
  )
}
if [ "$#" -gt 0 ]; then
  simulated "$@"
  exit
fi
echo "Python $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])'): the unit tests, 1 thread"
OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$venv/bin/python" -m pytest -q tests --ignore tests/test_nbgrader_course.py \
  --deselect tests/test_student_edition.py::test_the_handout_sets_itself_up_from_its_zip_and_opens
simulated notebooks/zh/[0-9][0-9]_*.ipynb
