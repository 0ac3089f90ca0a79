#!/usr/bin/env bash
# Everything that measures the GPU path, on a machine with a CUDA GPU, in parts that each fit in a few minutes:
#   info   the GPU, driver, torch and CUDA versions
#   quick  every notebook in quick mode (executed copies in OUT/quick; times go to notebooks/timings.json)
#   bench  benchmarks/cifar_loop.py at full size (with --compare-cpu) and benchmarks/petimages_preprocess.py on
#          25,000 generated PetImages-like JPEGs
#   full   every notebook in full mode, on full-size generated data where the real data cannot be downloaded
#          (NB_GENERATED_DATA=1: 50,000 + 10,000 CIFAR-shaped images, 25,000 PetImages-like JPEGs)
# Usage: bash tools/gpu_check.sh OUT_DIR PART...   (PYTHON=python3 by default; logs go to OUT_DIR/PART.log;
#        NOTEBOOKS="01 02" runs only those notebooks; petbench runs the PetImages benchmark alone)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: tools/gpu_check.sh OUT_DIR PART...}
shift
mkdir -p "$out"
PYTHON=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
status=0
for part in "$@"; do
  start=$SECONDS
  case $part in
    info)
      { date -u +"%Y-%m-%d %H:%M UTC"
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
        "$PYTHON" -c 'import torch, torchvision, sys; print("torch", torch.__version__, "CUDA", torch.version.cuda,
"torchvision", torchvision.__version__, "Python", sys.version.split()[0], "CPU cores", len(__import__("os").sched_getaffinity(0)))'
      } >"$out/info.log" 2>&1 ;;
    quick)
      # shellcheck disable=SC2086
      "$PYTHON" tools/run_notebooks.py ${NOTEBOOKS:-} --out "$out/quick" >"$out/quick.log" 2>&1 ;;
    bench)
      echo "$ python benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 --workers 4 --repeat 2 --compare-cpu" >"$out/bench.log"
      "$PYTHON" benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 --workers 4 --repeat 2 --compare-cpu \
        >>"$out/bench.log" 2>&1 ;;
    petbench)
      { pets=$(NB_GENERATED_DATA=1 "$PYTHON" -c 'from lessons import petimages; print(petimages.get_petimages())' | tail -n 1)  # its last line: the folder
        echo "$ python benchmarks/petimages_preprocess.py --root <25,000 generated JPEGs> --repeat 2"
        "$PYTHON" benchmarks/petimages_preprocess.py --root "$pets" --repeat 2
      } >"$out/petbench.log" 2>&1 ;;
    full)
      # shellcheck disable=SC2086
      NB_GENERATED_DATA=1 "$PYTHON" tools/run_notebooks.py ${NOTEBOOKS:-} --full --out "$out/full" >"$out/full.log" 2>&1 ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
  code=$?
  echo "$part: exit $code after $((SECONDS - start)) s" | tee -a "$out/parts.log"
  cp notebooks/timings.json "$out/timings.json" 2>/dev/null
  [ "$code" = 0 ] || status=$code
done
exit "$status"
