#!/usr/bin/env bash
# The GPU check in one command, sized for a machine with one CUDA GPU (an H100 or H200 with its own PyTorch, 16
# cores, no internet) and a budget of 9 minutes (BUDGET_S=540): every English notebook in quick mode and in full
# mode (full mode on generated data, NB_GENERATED_DATA=1), each top to bottom with every check holding; notebooks 09
# and 10 once more with NB_AMP_DTYPE=float16, the path of GPUs without bfloat16 (Colab's T4); the GPU tests of
# pytest, none skipped; and the figures benchmarks/RESULTS.md needs, from the executed notebooks.
#
#   bash tools/ci/gpu_check.sh wheels               # first, where PyPI can be reached: the Jupyter packages a bare
#                                                # GPU image lacks, as wheels in .whl/ (git-ignored) for Python
#                                                # WHEEL_PYTHON (3.12); the GPU machine installs them from there
#   bash tools/ci/gpu_check.sh OUT                  # on the GPU machine: every part below, in this order
#   bash tools/ci/gpu_check.sh OUT PART...          # only those parts, in that order; PART:NN,NN runs a part for
#                                                # those notebooks only (quick:10 full:10 full:08)
#   CPU_DRY_RUN=1 bash tools/ci/gpu_check.sh OUT    # the same parts on a CPU, in quick mode only, nothing recorded:
#                                                # proves the plumbing (NOTEBOOKS="09 10" to run fewer)
#
# Parts (the default runs setup, info, tests, quick, fp16, full and figures, in this order: if the budget runs out,
# the last ones are cut short; t4, bench and petbench run when named):
#   setup    install .whl/ into a temporary folder if the Jupyter packages are missing; stop at once without a
#            CUDA GPU (unless CPU_DRY_RUN=1)
#   info     date, GPU, driver, PCIe link (nvidia-smi and lessons/speed.py), torch, CUDA, cuDNN, Python, cores
#   tests    the tests marked `gpu` (tests/conftest.py); any skipped one fails the part on a GPU
#   quick    every notebook in quick mode; GPU wall times go to notebooks/timings.json (and the headers)
#   fp16     NB_AMP_DTYPE=float16: 09 in full mode (the ladder), 10 in quick mode; times not recorded
#   full     every notebook in full mode, NB_GENERATED_DATA=1 (50,000 + 10,000 CIFAR-shaped images, 25,000
#            PetImages-like JPEGs, generated), 09 and 10 first; GPU wall times recorded
#   t4       every notebook in quick mode on the GPU made T4-like (tests/t4_like.py, switched on by NB_GPU_LIKE=t4
#            with tests/switch_site first on PYTHONPATH, in every process): its allocator capped at 15 GB, TF32 off
#            (NVIDIA_TF32_OVERRIDE=0 and PyTorch's flags), torch.cuda.is_bf16_supported(including_emulation=False)
#            False, so mixed precision takes float16 by utils.amp_dtype's own T4 branch; on 2 CPU cores as Colab's
#            free tier (taskset). A check first measures that all of it holds; times not recorded
#   figures  the outputs of the cells that measure in 09 and 10, per run, into OUT/figures.md
#   bench, petbench   benchmarks/cifar_loop.py (--compare-cpu) and benchmarks/petimages_preprocess.py: not in the
#            default run (they do not fit in its budget)
#
# A part runs each notebook at most once per mode in one call: after quick:10 full:10 full:08, `full` runs the rest.
# The order for a GPU run (lesson 10 and 08's full mode first, then every lesson T4-like, then the rest of full mode):
#   BUDGET_S=540 bash tools/ci/gpu_check.sh OUT setup info quick:10 full:10 full:08 t4 tests full figures
#
# OUT receives: summary.log (each part's time and status, as printed), figures.md, timings.json and
# gpu-check.tar.gz (every log, every executed notebook, the pytest report), refreshed after every part.
# Exit status: 0 only if every part that ran passed and none was cut short. PYTHON=python3 by default.
set -uo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
export PYTHONUNBUFFERED=1

WHEELS="asttokens==3.0.2 comm==0.2.3 d2l==1.0.3 debugpy==1.8.22 decorator==5.2.1 executing==2.3.0
fastjsonschema==2.22.3 ipykernel==7.4.0 ipython==9.18.1 ipython_pygments_lexers==1.1.1 jedi==0.20.1
jsonschema==4.26.0 jsonschema-specifications==2025.9.1 jupyter_client==8.10.0 jupyter_core==5.9.1
matplotlib-inline==0.2.2 nbclient==0.11.0 nbformat==5.11.1 nest-asyncio2==1.7.4 parso==0.8.7 pexpect==4.9.0
platformdirs==4.14.8 prompt_toolkit==3.0.53 ptyprocess==0.7.0 pure_eval==0.2.4 pyzmq==27.3.0 referencing==0.37.0
rpds-py==2026.9.1 stack-data==0.6.3 tornado==6.6.1 traitlets==5.16.1 wcwidth==0.9.4"
# (the versions tools/setup.sh installs with ipykernel 7.4.0; numpy, matplotlib, pandas, pillow, psutil, pygments,
# pytest, requests, scipy, tensorboard, torch, torchvision and tqdm come with the GPU image)

if [ "${1:-}" = wheels ]; then
  pip=(.venv/bin/python -m pip)
  [ -x .venv/bin/python ] || pip=("$PYTHON" -m pip)
  # shellcheck disable=SC2086
  "${pip[@]}" download --no-deps --only-binary=:all: --python-version "${WHEEL_PYTHON:-3.12}" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform manylinux1_x86_64 -d .whl $WHEELS || exit 1
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.whl/' "$exclude" 2>/dev/null || echo '/.whl/' >>"$exclude"
  echo "$(find .whl -name '*.whl' | wc -l) wheels in .whl/ ($(du -sh .whl | cut -f1)); take .whl/ along to the GPU machine"
  exit 0
fi

out=${1:?usage: tools/ci/gpu_check.sh OUT [PART...]   or   tools/ci/gpu_check.sh wheels}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(setup info tests quick fp16 full figures)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT  # what OUT needs is packed into it after every part
dry=${CPU_DRY_RUN:-0}
budget=${BUDGET_S:-540}
deadline=$((SECONDS + budget - 15))  # the last 15 s for the figures and the archive
status=0
: >"$out/summary.log"
say() { echo "$*" | tee -a "$out/summary.log"; }

# The notebooks to run: NOTEBOOKS="01 09" (prefixes), default every English notebook
notebooks=()
for path in notebooks/[0-9][0-9]_*.ipynb; do
  name=$(basename "$path" .ipynb)
  if [ -z "${NOTEBOOKS:-}" ] || [[ " $NOTEBOOKS " == *" ${name:0:2} "* ]]; then notebooks+=("$name"); fi
done

# Runs notebooks with tools/author/run_notebooks.py in one Python process, going on after a failing one (its partial copy
# is written too), under what is left of the budget. Usage: run_nbs DIR "ENV=1 ..." "ARGS" NAMES...
cat >"$work/driver.py" <<'EOF'
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from tools.author import run_notebooks  # noqa: E402

DEADLINE = float(os.environ["GPU_CHECK_DEADLINE"])  # the budget's end, in time.time() seconds


class Client(run_notebooks.NotebookClient):
    """run_notebooks' client, whose cells time out when the budget is spent (CellTimeoutError), and which keeps
    what ran of a notebook that stopped, whatever stopped it."""

    copy = ""  # where the executed copy of the notebook now running goes

    def _get_timeout(self, cell):  # noqa: ANN001, ANN202
        timeout = super()._get_timeout(cell)
        left = max(1, int(DEADLINE - time.time()))
        return left if timeout is None else min(timeout, left)

    def execute(self, **kwargs):  # noqa: ANN003, ANN201
        for cell in self.nb.cells:  # a cell the run never reaches must not show the stored CPU output as its own
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        try:
            return super().execute(**kwargs)
        except BaseException:
            run_notebooks.nbformat.write(self.nb, Client.copy)
            raise


run_notebooks.NotebookClient = Client
folder, rest = sys.argv[1], sys.argv[2:]
args, names = rest[: rest.index("--")], rest[rest.index("--") + 1 :]
failed = []
for index, name in enumerate(names):
    if DEADLINE - time.time() < 15:
        print(f"{name}: CUT SHORT: the budget is spent; not run: {' '.join(names[index:])}", flush=True)
        sys.exit(124)
    Client.copy = os.path.join(folder, f"{name}.ipynb")
    try:
        run_notebooks.main([name[:2], *args, "--out", folder])
    except Exception as error:  # a failing cell (CellExecutionError), a dead kernel, the budget: note it, go on
        if time.time() >= DEADLINE - 1:
            print(f"{name}: CUT SHORT: the budget ran out in it; not run: {' '.join(names[index + 1 :]) or '-'}")
            sys.exit(124)
        failed.append(name)
        print(f"{name}: FAILED: {type(error).__name__}: {str(error)[-3000:]}", flush=True)
print(f"notebooks failed: {' '.join(failed) or 'none'}", flush=True)
sys.exit(1 if failed else 0)
EOF
run_nbs() {
  local dir=$1 envs=$2 args=$3
  shift 3
  [ $# -gt 0 ] || return 0
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 15 ]; then echo "not run, the budget is spent: $*"; return 124; fi
  mkdir -p "$dir"
  # the driver stops at the deadline itself; timeout is the backstop
  # shellcheck disable=SC2086
  env $envs GPU_CHECK_DEADLINE="$(($(date +%s) + left))" timeout --kill-after=10 $((left + 30)) \
    "${prefix[@]}" "$PYTHON" "$work/driver.py" "$dir" $args -- "$@"
}
prefix=()  # a command the notebooks run under (the t4 part's taskset)
selected() {  # the names among "$@" that the part runs: selected by NOTEBOOKS and PART:NN, not run yet in its mode
  local name
  for name in "$@"; do
    [[ " ${names[*]} " == *" $name "* ]] && [[ " ${done_runs[*]} " != *" $mode/$name "* ]] && echo "$name"
  done
  return 0
}
done_runs=()  # MODE/NAME of every notebook a part has run in this call (MODE: its folder: quick, full, fp16, t4)

pack() {  # everything so far into OUT: the archive, the times
  [ -f notebooks/timings.json ] && cp notebooks/timings.json "$out/timings.json"
  tar -czf "$out/gpu-check.tar.gz" -C "$work" --exclude=site . 2>/dev/null
}

say "gpu_check: parts ${parts[*]}; budget ${budget} s; $([ "$dry" = 1 ] && echo 'CPU dry run: quick mode only, nothing recorded' || echo 'on a GPU')"
if [ "$dry" != 1 ]; then
  # the plan's expected length, from the GPU times recorded in notebooks/timings.json (20 s where none is)
  "$PYTHON" - "${notebooks[@]}" <<'EOF' | tee -a "$out/summary.log"
import json, sys
times = json.load(open("notebooks/timings.json"))
def t(name, mode):
    return times.get(name, {}).get(f"{mode}/gpu", {}).get("seconds", 20.0)
names = sys.argv[1:]
quick, full = sum(t(n, "quick") for n in names), sum(t(n, "full") for n in names)
fp16 = t("09_gpu_speed", "full") + t("10_gpu_memory", "quick")
print(f"expected from notebooks/timings.json: quick {quick:.0f} s, full {full:.0f} s, fp16 {fp16:.0f} s, "
      f"with setup, info and tests about {quick + full + fp16 + 40:.0f} s")
EOF
fi

for spec in "${parts[@]}"; do
  part=${spec%%:*}
  only=""  # PART:NN,NN: those notebooks only
  [[ $spec == *:* ]] && only=${spec#*:}
  names=()
  for name in "${notebooks[@]}"; do
    if [ -z "$only" ] || [[ ",$only," == *",${name:0:2},"* ]]; then names+=("$name"); fi
  done
  mode=$part
  left=$((deadline - SECONDS))
  if [ "$left" -lt 15 ] && [ "$part" != figures ]; then  # the figures take seconds and no GPU: always
    say "$spec: SKIPPED: the ${budget} s budget is spent"
    status=124
    continue
  fi
  start=$SECONDS
  log="$work/$part${only:+-${only//,/-}}.log"
  case $part in
    setup)
      {
        if ! "$PYTHON" -c 'import nbclient, nbformat, ipykernel, d2l' 2>/dev/null && [ -d .whl ]; then
          echo "installing .whl/ into a temporary folder"
          "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$work/site" .whl/*.whl
        fi
      } >"$log" 2>&1
      if [ -d "$work/site" ]; then export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"; fi
      missing=$("$PYTHON" -c '
import importlib.util
names = ["torch", "torchvision", "nbclient", "nbformat", "ipykernel", "jupyter_client", "d2l", "matplotlib",
         "pandas", "PIL", "tqdm", "pytest", "tensorboard", "scipy", "requests"]
print(" ".join(n for n in names if importlib.util.find_spec(n) is None))' 2>&1)
      if [[ " $missing " == *" torch "* ]]; then
        say "setup: FAILED: $PYTHON has no PyTorch: set PYTHON to the interpreter that has the machine's own."
        pack
        exit 2
      elif [ -n "$missing" ]; then
        say "setup: FAILED: Python modules missing: $missing. Run \`bash tools/ci/gpu_check.sh wheels\` where PyPI can be reached and take .whl/ along."
        pack
        exit 2
      fi
      if [ "$dry" != 1 ] && ! "$PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >>"$log" 2>&1; then
        say "setup: FAILED: no CUDA GPU (torch.cuda.is_available() is False). This check needs one; CPU_DRY_RUN=1 runs its plumbing on a CPU."
        pack
        exit 3
      fi
      code=0 ;;
    info)
      {
        date -u +"%Y-%m-%d %H:%M UTC"
        if [ "$dry" != 1 ]; then
          nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,pcie.link.gen.current,pcie.link.width.current --format=csv
        fi
        "$PYTHON" -c '
import os, sys, torch, torchvision
import utils
from lessons import speed
device = utils.get_device()
print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(),
      "torchvision", torchvision.__version__, "Python", sys.version.split()[0], "CPU cores", utils.cpu_cores())
print("device", device, torch.cuda.get_device_name(device) if device.type == "cuda" else "")
print("mixed precision:", utils.amp_dtype(device), "(NB_AMP_DTYPE unset)" if "NB_AMP_DTYPE" not in os.environ else "")
if device.type == "cuda":
    print("PCIe link at its maximum (lessons/speed.py):", speed.pcie_link_gbps(device), "GB/s per direction")'
      } >"$log" 2>&1
      code=$?
      tee -a "$out/summary.log" <"$log" ;;
    tests)
      # shellcheck disable=SC2046
      timeout --kill-after=10 "$left" "$PYTHON" -m pytest -m gpu -o addopts= -p no:cacheprovider -q -rs \
        --junitxml "$work/gpu-tests.xml" $(grep -l '@pytest.mark.gpu' tests/test_*.py) >"$log" 2>&1
      code=$?
      if [ "$code" = 0 ]; then
        summary=$("$PYTHON" -c '
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot()
suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
print(suite.get("tests"), suite.get("skipped"))' "$work/gpu-tests.xml")
        read -r ran skipped <<<"$summary"
        say "tests: $ran GPU tests, $skipped skipped"
        if [ "$dry" != 1 ] && [ "$skipped" != 0 ]; then code=1; fi
      fi ;;
    quick|full|fp16|t4)
      record=""  # quick and full record GPU times in notebooks/timings.json; a CPU's times are not recorded
      [ "$dry" = 1 ] && record="--no-timings"
      full="--full"  # a CPU dry run stays in quick mode
      [ "$dry" = 1 ] && full=""
      case $part in
        # shellcheck disable=SC2046
        quick) run_nbs "$work/quick" "" "$record" $(selected "${notebooks[@]}") >"$log" 2>&1 ;;
        full)  # 09 and 10 first: the figures RESULTS.md needs most, if the budget cuts the part short
          # shellcheck disable=SC2046
          run_nbs "$work/full" "NB_GENERATED_DATA=1" "$full $record" $(selected 09_gpu_speed 10_gpu_memory) \
            $(selected $(printf '%s\n' "${notebooks[@]}" | grep -v -x -e 09_gpu_speed -e 10_gpu_memory)) >"$log" 2>&1 ;;
        fp16)  # 09 in full mode (its ladder at batch 512, as RESULTS.md has the bfloat16 one), 10 in quick mode
          # shellcheck disable=SC2046
          ( run_nbs "$work/fp16" "NB_AMP_DTYPE=float16" "$full --no-timings" $(selected 09_gpu_speed)
            first=$?
            # shellcheck disable=SC2046
            run_nbs "$work/fp16" "NB_AMP_DTYPE=float16" "--no-timings" $(selected 10_gpu_memory)
            second=$?
            [ "$first" = 0 ] && exit "$second"
            exit "$first"
          ) >"$log" 2>&1 ;;
        t4)  # the check first (in the same environment as the notebooks), then every notebook in quick mode
          t4env="NB_GPU_LIKE=t4 PYTHONPATH=$PWD/tests/switch_site${PYTHONPATH:+:$PYTHONPATH}"
          if [ "$(nproc)" -gt 2 ] && command -v taskset >/dev/null; then prefix=(taskset -c 0,1); fi
          # shellcheck disable=SC2086
          env $t4env "${prefix[@]}" "$PYTHON" tests/t4_like.py $([ "$dry" = 1 ] && echo --cpu-dry-run) >"$log" 2>&1
          checked=$?
          sed "s/^/t4: /" "$log" | tee -a "$out/summary.log"
          # shellcheck disable=SC2046
          run_nbs "$work/t4" "$t4env" "--no-timings" $(selected "${notebooks[@]}") >>"$log" 2>&1
          code=$?
          prefix=()
          [ "$code" = 0 ] && code=$checked  # the notebooks' status first: a cut-short run stays 124
          (exit "$code") ;;
      esac
      code=$?
      for name in $(grep -oE '^[0-9][0-9]_[a-z0-9_]+(\.ipynb: [0-9.]+ s|: FAILED|: CUT SHORT)' "$log" | grep -oE '^[0-9][0-9]_[a-z0-9_]+'); do
        done_runs+=("$mode/$name")
      done
      grep -E '^[0-9][0-9]_[a-z0-9_]+(\.ipynb: [0-9.]+ s|: FAILED|: CUT SHORT)|^not run' "$log" | cut -c1-300 | sed "s/^/$spec: /" |
        tee -a "$out/summary.log" ;;
    figures)
      "$PYTHON" - "$work" >"$out/figures.md" 2>"$log" <<'EOF'
"""The outputs of the cells that measure, from each run's executed 09 and 10, for benchmarks/RESULTS.md."""
import sys
from pathlib import Path

import nbformat

CELLS = {  # cell id -> what it measures
    "09_gpu_speed": {
        "22f55d43": "versions and GPU", "ea76b88c": "a product returns before it is done",
        "ce71c2e0": "the first six steps", "5f2cff12": "batch 64, timed with time_runs",
        "1155c480": "FLOP per image", "f57a5932": "precisions", "78245cfa": "ceilings and the step's share",
        "f885ecb3": "each rung within the tolerance of its precision (TF32: 5e-3)",
        "702a777b": "the ladder", "0b92c4cf": "the source's clock", "6937e3d4": "a blocking copy waits",
        "6ff57de2": "copies against the link", "4ae6b133": "a non_blocking copy returns at once",
    },
    "10_gpu_memory": {
        "c6abd9b0": "versions and GPU", "c7d86135": "allocated, reserved and driver memory (section 4)",
        "4b8c7853": "accumulation against the whole batch, TF32 off", "bd0d3e53": "checkpointing, TF32 off",
        "06cb6399": "saved bytes under each remedy", "43fbbd92": "the search under the cap, a real OutOfMemoryError",
        "66b8b419": "autocast's gradients against float32's", "b7e1a0c3": "max-pool windows that moved",
        "b7e1a0c7": "average pools instead", "759d3afa": "the allocator's peak in each training step",
        "0afe529a": "nvidia-smi against the reserved memory", "720d6560": "exercise 3: SGD and Adam under the cap",
    },
}
work = Path(sys.argv[1])
print("# Figures from the GPU check\n")
for run in ("quick", "fp16", "t4", "full"):
    for name, cells in CELLS.items():
        path = work / run / f"{name}.ipynb"
        if not path.is_file():
            continue
        nb = nbformat.read(path, as_version=4)
        by_id = {cell.get("id"): cell for cell in nb.cells}
        print(f"## {name}, {run} run\n")
        for cell_id, what in cells.items():
            cell = by_id.get(cell_id)
            text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", [])
                           if o.get("output_type") in ("stream", "execute_result")) if cell else "(no such cell)"
            print(f"{what} (cell {cell_id}):\n\n```\n{text.rstrip() or '(no output: not reached)'}\n```\n")
EOF
      code=$? ;;
    bench)
      echo "$ python benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 --workers 4 --repeat 2 --compare-cpu" >"$log"
      timeout --kill-after=10 "$left" "$PYTHON" benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 \
        --workers 4 --repeat 2 --compare-cpu >>"$log" 2>&1
      code=$? ;;
    petbench)
      { pets=$(NB_GENERATED_DATA=1 "$PYTHON" -c 'from lessons import petimages; print(petimages.fetch())' | tail -n 1)  # its last line: the folder
        echo "$ python benchmarks/petimages_preprocess.py --root <25,000 generated JPEGs> --repeat 2"
        timeout --kill-after=10 "$left" "$PYTHON" benchmarks/petimages_preprocess.py --root "$pets" --repeat 2
      } >"$log" 2>&1
      code=$? ;;
    *) say "unknown part $part"; exit 2 ;;
  esac
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then say "$spec: CUT SHORT: the ${budget} s budget ran out"; code=124; fi
  say "$spec: exit $code after $((SECONDS - start)) s ($((deadline - SECONDS)) s of the budget left)"
  [ "$code" = 0 ] || status=$code
  pack
done
say "gpu_check: $([ "$status" = 0 ] && echo 'every part passed' || echo "FAILED (status $status): see summary.log and the logs in gpu-check.tar.gz")"
exit "$status"
