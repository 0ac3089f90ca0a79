#!/usr/bin/env bash
# Build the lessons' website into _site/ (English in _site/en/, Chinese in _site/zh/) from the stored notebooks.
# Sets up .venv-docs (requirements-docs.txt) first; offline after that. Usage: bash tools/teacher/build_site.sh [--lang en]
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
[ -x .venv-docs/bin/python ] || "$PYTHON" -m venv .venv-docs
source tools/installer.sh  # uv where it can be had, else pip
install .venv-docs -r requirements-docs.txt
.venv-docs/bin/python tools/teacher/build_site.py "$@"
