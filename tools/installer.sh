# Sourced by tools/setup.sh, tools/ci/other_python.sh and the website's scripts. `install VENV ARGS...` installs
# packages into the virtual environment VENV. It uses uv (installed into VENV first) where it can: uv downloads and
# unpacks wheels in parallel and reuses its cache, which matters for PyTorch's 3-5 GB of CUDA libraries (measured in
# benchmarks/RESULTS.md, "CI time"). Where uv cannot be installed, plain pip does the same job, more slowly.
#
# The package index is the one the user set for pip: a mirror (PIP_INDEX_URL, or index-url in pip.conf), a
# company's or a school's own index, extra indexes, a folder of wheels. pip reads these settings itself (so uv is
# installed from the mirror too), but uv reads neither pip.conf nor PIP_* variables: `pip_settings_for_uv` asks pip
# what it would use (`pip config list`: the PIP_* variables and every pip.conf / pip.ini pip reads) and hands it to
# uv. What uv cannot take over (a keyring provider other than "subprocess" or "disabled") makes `install` use pip.
# tests/test_installer.py proves it with a local index that is the only one reachable.
install() {
  local venv=$1 line use_pip="" quiet=-q
  local handed=() environment=()
  shift
  [ -t 2 ] && quiet=""  # in a terminal, uv and pip show their progress bars
  if [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q uv >/dev/null 2>&1; then
    if [ "${_PIP_SETTINGS_VENV:-}" != "$venv" ]; then  # once per environment: pip takes a second to start
      _PIP_SETTINGS=$(pip_settings_for_uv "$venv") || return 1
      _PIP_SETTINGS_VENV=$venv
    fi
    while IFS= read -r line; do
      case $line in
        "") ;;
        pip) use_pip=1 ;;
        -*) handed+=("$line") ;;
        *) environment+=("$line") ;;
      esac
    done <<<"$_PIP_SETTINGS"
    if [ -z "$use_pip" ]; then
      env ${environment[@]+"${environment[@]}"} "$venv/bin/uv" pip install $quiet --python "$venv/bin/python" \
        ${handed[@]+"${handed[@]}"} "$@"
      return
    fi
  fi
  "$venv/bin/python" -m pip install $quiet "$@"
}

# `pip_settings_for_uv VENV` prints, one a line, what makes uv use the package index pip in VENV would use: uv
# options (--index-url=URL, --extra-index-url=URL, --index-strategy=unsafe-best-match, which merges the indexes as
# pip does, --find-links=PATH, --no-index, --allow-insecure-host=HOST, --keyring-provider=subprocess), variables
# for uv's environment (SSL_CERT_FILE=PATH for pip's cert, SSL_CLIENT_CERT=PATH, HTTP_PROXY and HTTPS_PROXY for
# pip's proxy), or the single word `pip` where uv cannot do what pip was told. Nothing for a user who set nothing.
# pip's own precedence: a PIP_* variable over the [install] section over [global]; pip.conf files merged by pip.
pip_settings_for_uv() {
  "$1/bin/python" - <<'PY'
import ast
import subprocess
import sys

listing = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
if listing.returncode:
    sys.exit(f"tools/installer.sh: `pip config list` failed, so pip's package index is unknown:\n{listing.stderr}")
settings = {}
for section in ("global", "install", ":env:"):  # pip's order: each overrides the one before
    for line in listing.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.startswith(section + "."):
            settings[key[len(section) + 1 :]] = ast.literal_eval(value)
words = {key: value.split() for key, value in settings.items()}
out = []
if words.get("keyring-provider", ["disabled"])[0] not in ("disabled", "subprocess"):
    out.append("pip")
elif words.get("keyring-provider") == ["subprocess"]:
    out.append("--keyring-provider=subprocess")
if settings.get("no-index", "").strip().lower() in ("1", "y", "yes", "t", "true", "on"):
    out.append("--no-index")
out += [f"--index-url={url}" for url in words.get("index-url", [])[:1]]
out += [f"--extra-index-url={url}" for url in words.get("extra-index-url", [])]
if words.get("extra-index-url"):
    out.append("--index-strategy=unsafe-best-match")
out += [f"--find-links={place}" for place in words.get("find-links", [])]
out += [f"--allow-insecure-host={host}" for host in words.get("trusted-host", [])]
for key, variables in (("cert", ["SSL_CERT_FILE"]), ("client-cert", ["SSL_CLIENT_CERT"]),
                       ("proxy", ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"])):
    if settings.get(key, "").strip():
        out += [f"{variable}={settings[key].strip()}" for variable in variables]
print("\n".join(out))
PY
}

# `warm_bytecode VENV` imports what every lesson's kernel imports once, with Python's bytecode cache written even
# where PYTHONDONTWRITEBYTECODE is set (as in CI), and prints the versions of Python, torch and torchvision. Without
# .pyc files every kernel and subprocess would compile torch's sources again on import (20 s instead of 5 s for
# `import torch, torchvision` on a 2-core CPU). These imports write about 2,400 .pyc files in 26 CPU-seconds; uv's
# --compile-bytecode (pip's default) compiles all 13,500 .py files of the environment, most of which no lesson
# imports, in 65 CPU-seconds (benchmarks/RESULTS.md, "CI time"). What a lesson imports beyond these is cached on
# first import, or compiled by each process where PYTHONDONTWRITEBYTECODE is set.
warm_bytecode() {
  "$1/bin/python" -c '
import sys
sys.dont_write_bytecode = False
import torch, torchvision, torch.distributed, torch.multiprocessing, torch.utils.tensorboard
import matplotlib.pyplot, numpy, PIL.Image, tqdm.std, nbformat, ipykernel.kernelapp
print("Python", sys.version.split()[0], "torch", torch.__version__, "torchvision", torchvision.__version__)'
}
