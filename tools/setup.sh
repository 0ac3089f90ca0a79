#!/usr/bin/env bash
# Create .venv (if missing) and install the pinned stack. Safe to run again; never downgrades numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
# Windows: Git Bash, MSYS2 and Cygwin are not Linux (a venv there has Scripts\python.exe, no bin/python, and the
# lessons' setup is not made for them); WSL2 with Ubuntu is (README: "Windows"). Said in words, not a traceback.
windows_shell() {
  cat >&2 <<'EOF'
tools/setup.sh: this is a Windows shell (Git Bash, MSYS2 or Cygwin), where Python's virtual environments have
Scripts\ instead of bin/: the lessons' setup runs on Linux or macOS. On Windows, use WSL2 with Ubuntu:
  1. in PowerShell, as administrator: wsl --install -d Ubuntu-24.04   (then restart Windows, open "Ubuntu")
  2. in Ubuntu: sudo apt update && sudo apt install -y python3-venv git unzip
  3. in Ubuntu, in the project's folder (or the unzipped student.zip): bash tools/setup.sh && .venv/bin/jupyter lab
See README.md, "Windows".
tools/setup.sh：这是Windows上的shell（Git Bash、MSYS2或Cygwin），其中Python虚拟环境的文件夹是Scripts\而不是bin/，
课程的安装脚本只能在Linux或macOS上运行。在Windows上请使用WSL2和Ubuntu，步骤同上，见README.zh.md中的“Windows”。
EOF
  exit 1
}
case "$(uname -s 2>/dev/null || true)" in
  MINGW* | MSYS* | CYGWIN*) windows_shell ;;
esac
# PYTHON=python3.13 picks the interpreter; VENV=.venv-py313 another environment; REQUIREMENTS=FILE another list of
# pins than requirements.txt (tools/ci/other_python.sh uses all three, for the oldest supported PyTorch).
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
REQUIREMENTS="${REQUIREMENTS:-requirements.txt}"
"$PYTHON" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else
  f"Python 3.11, 3.12 or 3.13 is needed, this is {sys.version.split()[0]}: run with PYTHON=python3.12 (for example)")'
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
if [ ! -x "$VENV/bin/python" ]; then  # a Windows Python (python.exe on PATH) makes a Windows layout, even here
  [ -e "$VENV/Scripts" ] && windows_shell
  echo "tools/setup.sh: $PYTHON -m venv made no $VENV/bin/python: delete $VENV and run again" >&2
  exit 1
fi
source tools/installer.sh  # defines `install`: uv where it can be had (several times faster for PyTorch), else pip
echo "tools/setup.sh: installing the lessons' packages into $VENV. The first time, this downloads about 2.8 GB" \
  "(PyTorch with its CUDA libraries): 7 to 18 minutes on a home connection, under a minute from a cache." >&2
echo "tools/setup.sh：正在把课程所需的软件包安装到$VENV。第一次安装要下载约2.8 GB（PyTorch及其CUDA库），\
家用网络大约需要7到18分钟；已有缓存时不到一分钟。" >&2
install "$VENV" -r "$REQUIREMENTS"
echo "tools/setup.sh: packages installed; now d2l, the Jupyter kernel and JupyterLab's settings." >&2
# d2l 1.0.3 pins numpy==1.23.5 and friends, which break on Python >= 3.12: install it without its pins.
install "$VENV" --no-deps -r requirements-nodeps.txt
# the kernel the notebooks name (tools/author/template.py KERNELSPEC): JupyterLab then opens them unmodified
"$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
# JupyterLab of this environment only: no pop-up asking "get notified about official Jupyter news?" over the lesson,
# no check for updates (a request to the internet); a settings override in the environment (overrides.d: a user's own
# settings still win). tools/ci/check_lab.py opens a lesson with it.
mkdir -p "$VENV/share/jupyter/lab/settings/overrides.d"
echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
  >"$VENV/share/jupyter/lab/settings/overrides.d/pytorch-gpu-notebooks.json"
echo "setup done: $(warm_bytecode "$VENV")"  # and the bytecode of what every lesson imports (tools/installer.sh)
