#!/usr/bin/env bash
# Run every test: modules, chapters executed in Jupyter, widgets driven in headless Chromium.
#
#   bash scripts/test.sh                      # set up if needed, ruff, then the whole suite
#   bash scripts/test.sh -m "not browser"     # any extra arguments go to pytest
#   FORCE_SETUP=1 bash scripts/test.sh        # re-run the set-up even if nothing changed
#
# The set-up (scripts/setup.sh) runs when its inputs changed since it last succeeded: the
# stamp in node_modules/ holds the hashes of requirements.txt, package-lock.json, pyproject.toml
# and setup.sh and the Python environment's path, and `npm ci` wipes it with node_modules, so a
# clean clone (CI) always sets up.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

STAMP=node_modules/.book-setup-stamp
want="$( (sha256sum requirements.txt package-lock.json pyproject.toml scripts/setup.sh
          python3 -c 'import sys; print(sys.prefix)') )"
if [ "${FORCE_SETUP:-0}" != 0 ] || [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
  bash scripts/setup.sh
  printf '%s\n' "$want" > "$STAMP"
else
  echo "==> set-up skipped: nothing changed since it last ran (FORCE_SETUP=1 re-runs it)"
fi
python3 -m ruff check code tests scripts booktools
python3 -m pytest -q -p no:cacheprovider "$@"
