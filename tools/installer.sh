# Sourced by tools/setup.sh and tools/oldest_torch.sh. `install VENV ARGS...` installs packages into the virtual
# environment VENV. It uses uv (installed into VENV first) where it can: uv downloads and unpacks wheels in
# parallel and reuses its cache, which matters for PyTorch's 3-5 GB of CUDA libraries (measured in
# benchmarks/RESULTS.md, "CI time"). Where uv cannot be installed, plain pip does the same job, more slowly.
# --compile-bytecode: pip writes .pyc files at install time, uv only when asked. Without them, and with
# PYTHONDONTWRITEBYTECODE set (as in CI), every process compiles torch's Python sources again on import: 7.7 s
# instead of 3.5 s for `import torch, torchvision` on a 2-core CPU, paid by every kernel and subprocess in the tests.
install() {
  local venv=$1
  shift
  if [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q uv >/dev/null 2>&1; then
    "$venv/bin/uv" pip install -q --compile-bytecode --python "$venv/bin/python" "$@"
  else
    "$venv/bin/python" -m pip install -q "$@"
  fi
}
