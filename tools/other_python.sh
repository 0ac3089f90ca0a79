#!/usr/bin/env bash
# The unit tests and strict nbval of every notebook of the Chinese edition on a second supported Python, as another
# x86-64 CPU with one thread (tools/other_cpu.env). The main test suite runs the unit tests and compares the English
# notebooks' stored outputs on .venv's Python (3.11 in CI) at the machine's own instruction set and thread count;
# this lane runs the same unit tests and compares the Chinese twins' outputs on Python 3.13 (by default), with the
# default ATen kernels and one thread. A Chinese notebook holds the English one's code token for token and its
# outputs with the printed words translated (tests/test_translate.py), so every stored output is proven on two
# Pythons, two instruction sets and two thread counts, every Chinese notebook, run from notebooks/zh/, prints what it
# stores, and every unit test passes at both ends of the supported range of Pythons. It builds .venv-py313 with
# tools/setup.sh first (safe to run again).
# Left to the main suite, for CI's 15 minutes: the handout's test (tests/test_student_edition.py), which builds the
# handout's own environment with the README's command and so with the `python3` on PATH, whichever Python runs the
# test (here it would repeat the main suite's run to the letter), and the nbgrader course's tests
# (tests/test_nbgrader_course.py: about 115 CPU-seconds of nbgrader's own commands and kernels). The README's whole
# test command on 3.12 and 3.13, these included, is recorded in benchmarks/RESULTS.md.
# Usage: bash tools/other_python.sh [pytest arguments]   (default: the unit tests and every Chinese notebook)
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
[ "$#" -gt 0 ] ||
  set -- tests notebooks/zh/[0-9][0-9]_*.ipynb --ignore tests/test_nbgrader_course.py \
    --deselect tests/test_student_edition.py::test_the_handout_sets_itself_up_from_its_zip_and_opens
source tools/other_cpu.env
echo "Python $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])'), simulated CPU:" \
     "ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA" \
     "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS, $OMP_NUM_THREADS thread(s)"
exec "$venv/bin/python" -m pytest -q "$@"
