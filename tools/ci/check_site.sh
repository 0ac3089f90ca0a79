#!/usr/bin/env bash
# Test the built website (_site/, from tools/teacher/build_site.sh) in a real browser: Debian's Chromium driven by
# Playwright (tools/ci/check_site.py), with axe-core's accessibility rules. Installs Chromium and the CJK fonts with
# apt-get when they are missing (as root, as CI runs; otherwise it says what to install), Playwright into .venv-docs,
# and axe-core from npm, pinned with its checksum in site/package-lock.json, into .venv-docs/axe (once; npm ci takes
# a second or two). Usage: bash tools/ci/check_site.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
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
if ! cmp -s site/package-lock.json .venv-docs/axe/package-lock.json ||
  [ ! -f .venv-docs/axe/node_modules/axe-core/axe.min.js ]; then
  if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      apt-get install -y -qq npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
    else
      echo "needs npm (Node.js) for axe-core: sudo apt-get install npm" >&2
      exit 2
    fi
  fi
  mkdir -p .venv-docs/axe
  cp site/package.json site/package-lock.json .venv-docs/axe/
  npm ci --prefix .venv-docs/axe --no-audit --no-fund --loglevel=error
fi
.venv-docs/bin/python tools/ci/check_site.py "$@"
