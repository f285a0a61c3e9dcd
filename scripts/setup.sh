#!/usr/bin/env bash
# Set up a fresh machine to render and test the book: Python packages (torch pinned to its CPU
# build), the book's own modules, Quarto 1.7.34, the test-side npm packages, and Chromium for the
# browser tests.
#
#   bash scripts/setup.sh
#   TORCH_INDEX=<a PyTorch wheel index> bash scripts/setup.sh   # another torch build (README)
#   TORCH_INDEX= bash scripts/setup.sh                          # torch from pip's configured index
#
# Every step that needs the internet beyond the package registries (PyTorch's wheel index,
# Quarto's release on GitHub) is probed first with a short timeout; where it is unreachable the
# step says so in one line and the set-up goes on (the tests need neither).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "usage: bash scripts/setup.sh (no arguments; see --help)" >&2; exit 2 ;;
esac

TORCH_PIN="$(grep -E '^torch==' requirements.txt)"
QUARTO_VERSION=1.7.34
TORCH_INDEX="${TORCH_INDEX-https://download.pytorch.org/whl/cpu}"

# reachable URL: exit 0 when URL answers within 5 s (any HTTP status below 500).
reachable() {
  python3 - "$1" <<'EOF'
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="HEAD"), timeout=5)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code < 500 else 1)
except Exception:
    sys.exit(1)
EOF
}

if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "==> installing Debian's chromium (for the browser tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "!! Chromium not found: install your distribution's chromium package (browser tests need it)" >&2
  fi
fi

# torch first, from PyTorch's CPU wheel index: the public index resolves the same pin to the
# Linux build that pulls several GB of CUDA libraries. requirements.txt then finds it installed
# (a local label such as +cpu satisfies `torch==2.13.0`).
if [ -n "$TORCH_INDEX" ] && reachable "${TORCH_INDEX%/}/torch/"; then
  echo "==> $TORCH_PIN from $TORCH_INDEX"
  python3 -m pip install -q --timeout 30 --index-url "$TORCH_INDEX" "$TORCH_PIN"
elif [ -n "$TORCH_INDEX" ]; then
  echo "!! $TORCH_INDEX unreachable: $TORCH_PIN comes from pip's configured index (check it is the CPU build you want)"
fi

echo "==> Python packages (requirements.txt) and the book's modules (pip install -e .)"
python3 -m pip install -q -r requirements.txt

# Quarto, for `quarto preview` / `quarto render` (the tests never need it). PyPI's quarto-cli
# downloads Quarto's release from GitHub while it installs.
QUARTO_URL="https://github.com/quarto-dev/quarto-cli/releases/download/v$QUARTO_VERSION/"
QUARTO_LOG="${TMPDIR:-/tmp}/quarto-cli-install.log"
if [ "$(quarto --version 2>/dev/null || true)" = "$QUARTO_VERSION" ]; then
  echo "==> Quarto $QUARTO_VERSION already installed"
elif ! reachable "$QUARTO_URL"; then
  echo "!! Quarto $QUARTO_VERSION not installed: its release on GitHub is unreachable; the tests go on without it (to preview the book, install it from https://quarto.org/docs/get-started/)"
elif python3 -m pip install -q --timeout 30 "quarto-cli==$QUARTO_VERSION" >"$QUARTO_LOG" 2>&1; then
  echo "==> Quarto $(quarto --version 2>/dev/null || echo "$QUARTO_VERSION") (pip's quarto-cli)"
else
  echo "!! Quarto $QUARTO_VERSION not installed: pip install quarto-cli==$QUARTO_VERSION failed (log: $QUARTO_LOG); the tests go on without it"
fi

echo "==> npm packages (package-lock.json: the Observable runtime, parser, stdlib, Plot, Inputs)"
npm ci --no-audit --no-fund --loglevel=error
