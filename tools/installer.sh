# Sourced by tools/setup.sh and tools/oldest_torch.sh. `install VENV ARGS...` installs packages into the virtual
# environment VENV. It uses uv (installed into VENV first) where it can: uv downloads and unpacks wheels in
# parallel and reuses its cache, which matters for PyTorch's 3-5 GB of CUDA libraries (measured in
# benchmarks/RESULTS.md, "CI time"). Where uv cannot be installed, plain pip does the same job, more slowly.
install() {
  local venv=$1
  shift
  if [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q uv >/dev/null 2>&1; then
    "$venv/bin/uv" pip install -q --python "$venv/bin/python" "$@"
  else
    "$venv/bin/python" -m pip install -q "$@"
  fi
}
