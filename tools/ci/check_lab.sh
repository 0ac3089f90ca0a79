#!/usr/bin/env bash
# Test what a student sees in JupyterLab (tools/ci/check_lab.py): three lessons opened in .venv's JupyterLab, in a real
# browser, Debian's Chromium driven by Playwright, as the website's test does (tools/ci/check_site.sh). Needs .venv
# (bash tools/setup.sh); installs Chromium with apt-get when it is missing (as root, as CI runs; otherwise it says
# what to install) and Playwright into .venv-docs (requirements-docs.txt; a no-op after tools/teacher/build_site.sh).
# Usage: bash tools/ci/check_lab.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/jupyter ] || { echo "needs .venv with JupyterLab: run bash tools/setup.sh first" >&2; exit 2; }
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
  else
    echo "needs Debian's chromium: sudo apt-get install chromium" >&2
    exit 2
  fi
fi
PYTHON="${PYTHON:-python3}"
[ -x .venv-docs/bin/python ] || "$PYTHON" -m venv .venv-docs
source tools/installer.sh  # uv where it can be had, else pip
install .venv-docs -r requirements-docs.txt
.venv-docs/bin/python tools/ci/check_lab.py "$@"
