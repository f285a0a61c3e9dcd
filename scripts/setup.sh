#!/usr/bin/env bash
# Set up a fresh machine to render and test the book: Python packages (torch pinned to its CPU
# build), the book's own modules, the test-side npm packages, and Chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "==> installing Debian's chromium (for the browser tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "!! Chromium not found: install your distribution's chromium package (browser tests need it)" >&2
  fi
fi

echo "==> Python packages (requirements.txt; torch==2.13.0 is the CPU build)"
python3 -m pip install -q -r requirements.txt

echo "==> npm packages (package-lock.json: the Observable runtime, parser, stdlib, Plot, Inputs)"
npm ci --no-audit --no-fund --loglevel=error
