#!/usr/bin/env bash
# Test the built website (_site/, from tools/build_site.sh) in a real browser: Debian's Chromium driven by
# Playwright (tools/check_site.py). Installs Chromium and the CJK fonts with apt-get when they are missing (as root,
# as CI runs; otherwise it says what to install), and Playwright into .venv-docs. Usage: bash tools/check_site.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq chromium fonts-noto-cjk >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }
  else
    echo "needs Debian's chromium and fonts-noto-cjk: sudo apt-get install chromium fonts-noto-cjk" >&2
    exit 2
  fi
fi
PYTHON="${PYTHON:-python3}"
[ -x .venv-docs/bin/python ] || "$PYTHON" -m venv .venv-docs
source tools/installer.sh  # uv where it can be had, else pip
install .venv-docs -r requirements-docs.txt
.venv-docs/bin/python tools/check_site.py "$@"
