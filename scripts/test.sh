#!/usr/bin/env bash
# Run every test: modules, chapters executed in Jupyter, widgets driven in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 -m ruff check code tests scripts booktools
python3 -m pytest -q -p no:cacheprovider "$@"
