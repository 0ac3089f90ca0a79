#!/usr/bin/env bash
# The other end of the supported range: Python 3.13 (by default) with the oldest supported PyTorch, 2.8.0 with
# torchvision 0.23.0 (everything else as pinned in requirements.txt), where the test command runs Python 3.11 (in CI)
# with the pinned PyTorch. It builds .venv-py313-torch2.8 with tools/setup.sh (safe to run again), then runs
#   1. the unit tests, at one thread on the machine's own CPU (no unit test compares a float that depends on the
#      instruction set);
#   2. every notebook of the Chinese edition under strict nbval, as another x86-64 CPU with one thread would run it
#      (tools/ci/other_cpu.env: the default ATen kernels, oneDNN and MKL limited to AVX), and after each notebook's last
#      cell every cell again in the same kernel, as a student who presses "Run all" twice runs it, in emulated TF32
#      (tests/nbval_lanes.py): float32 convolutions and matrix products round their inputs to 10 mantissa bits as a
#      GPU of compute capability 8.0 or newer (A100, L4, H100) does, so a check comparing a TF32 result with a float32
#      one fails here as it would there. An error in either run fails; the first run's outputs must equal
#      the stored ones, except the wording of PyTorch's own error messages in the errors shown on purpose, which
#      changes between versions (their type is compared; the test command compares the words with the pinned
#      PyTorch). The second run's outputs are not compared.
# A Chinese notebook holds the English one's code token for token and outputs with the English one's numbers, stored
# from running it (tests/test_translate.py, tools/author/run_notebooks.py), so every stored output is proven at both ends of the range: two Pythons, two PyTorch
# versions, two instruction sets, two thread counts; and every Chinese notebook, run from notebooks/zh/, prints what
# it stores. The simulated CPU slows PyTorch's convolutions (notebook 06: 54 CPU-seconds natively, 79 simulated).
# Left to the test command, for CI's 15 minutes: the handout's test (tests/test_student_edition.py), which builds the
# handout's own environment with the README's command and so with the `python3` on PATH, whichever Python runs the
# test (here it would repeat the test command's run to the letter), and the nbgrader course's tests
# (tests/test_nbgrader_course.py: about 115 CPU-seconds of nbgrader's own commands and kernels). The README's whole
# test command on 3.12 and 3.13 is recorded in benchmarks/RESULTS.md.
# Usage: bash tools/ci/other_python.sh [tests|notebooks|pytest arguments]
#          (default: both parts; `tests` or `notebooks`: that part; other arguments: pytest with them, on the
#          simulated CPU, with the second run)
#        OTHER_PYTHON=3.12 bash tools/ci/other_python.sh      another version: 3.11, 3.12 or 3.13
#        OTHER_PYTHON_BIN=/path/to/python3.13 bash ...     an interpreter that is not on PATH or in pyenv
#        OTHER_TORCH=pinned bash tools/ci/other_python.sh     requirements.txt's PyTorch instead of the oldest
set -euo pipefail
cd "$(dirname "$0")/../.."
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
  echo "tools/ci/other_python.sh: Python $version was not found, and this lane needs it (it is never skipped)." >&2
  echo "Fix: install it (\`pyenv install $version\`, or your system's python$version package), or set" \
       "OTHER_PYTHON_BIN to its path, or OTHER_PYTHON to another of 3.11, 3.12, 3.13 that you have." >&2
  exit 1
fi
OLDEST_TORCH="2.8.0"        # the oldest supported PyTorch (older than the one Colab ships)
OLDEST_TORCHVISION="0.23.0" # the torchvision built for it
requirements=requirements.txt
case "${OTHER_TORCH:-oldest}" in
  oldest)  # requirements.txt with the oldest torch and torchvision
    venv=".venv-py${version//./}-torch${OLDEST_TORCH%.*}"
    requirements=$(mktemp)
    trap 'rm -f "$requirements"' EXIT
    grep -Ev '^torch(vision)?==' requirements.txt >"$requirements"
    printf 'torch==%s\ntorchvision==%s\n' "$OLDEST_TORCH" "$OLDEST_TORCHVISION" >>"$requirements" ;;
  pinned) venv=".venv-py${version//./}" ;;
  *) echo "tools/ci/other_python.sh: OTHER_TORCH=${OTHER_TORCH}: use oldest (the default) or pinned" >&2; exit 2 ;;
esac
PYTHON="$python" VENV="$venv" REQUIREMENTS="$requirements" bash tools/setup.sh

tests() {  # the unit tests, natively, at one thread
  echo "$("$venv/bin/python" -c 'import sys, torch; print("Python", sys.version.split()[0], "torch", torch.__version__)'):" \
       "the unit tests, 1 thread"
  OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$venv/bin/python" -m pytest -q tests --ignore tests/test_nbgrader_course.py \
    --deselect tests/test_student_edition.py::test_the_handout_sets_itself_up_from_its_zip_and_opens
}
simulated() {  # strict pytest of "$@" on the simulated CPU, each notebook run twice, the second time in emulated TF32
  (
    source tools/ci/other_cpu.env
    # tests/nbval_lanes.py: the second run and the masked library messages; tests/switch_site first on PYTHONPATH so
    # that the processes a notebook starts in its second run (NB_TF32=emulated by then) compute in TF32 too
    export NB_SECOND_RUN=tf32 NB_MASK_LIBRARY_MESSAGES=1 PYTHONPATH="$PWD/tests/switch_site${PYTHONPATH:+:$PYTHONPATH}"
    echo "$("$venv/bin/python" -c 'import sys, torch; print("Python", sys.version.split()[0], "torch", torch.__version__)')," \
         "simulated CPU: ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA" \
         "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS, $OMP_NUM_THREADS thread(s); every notebook twice in one" \
         "kernel, the second time in emulated TF32"
    "$venv/bin/python" -m pytest -q "$@"
  )
}
case "${1:-}" in
  "") tests && simulated notebooks/zh/[0-9][0-9]_*.ipynb ;;
  tests) tests ;;
  notebooks) simulated notebooks/zh/[0-9][0-9]_*.ipynb ;;
  *) simulated "$@" ;;
esac
