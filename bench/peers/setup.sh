#!/usr/bin/env bash
# Set up the peer scorers (copydetect, Dolos) for side-by-side quality runs.
#
# usage: bench/peers/setup.sh
#
# Creates, outside the repo and never as winnowdb dependencies:
#   $PEERS_VENV  (default /tmp/winnowdb-peers): Python venv with copydetect==0.5.0 + numpy
#   $DOLOS_DIR   (default /tmp/winnowdb-dolos): npm folder with @dodona/dolos-lib@3.5.1 and the
#                shared score_dolos.mjs copied beside node_modules (ES modules ignore NODE_PATH)
# Idempotent: re-running only re-checks the installs. The peers are then run by
# `python bench/quality.py --peers` (Dolos through bench/peers/dolos.sh).
set -euo pipefail

PEERS_VENV=${PEERS_VENV:-/tmp/winnowdb-peers}
DOLOS_DIR=${DOLOS_DIR:-/tmp/winnowdb-dolos}
SHARED_PEERS=${SHARED_PEERS:-/work/shared/peers}
PYTHON=${PYTHON:-python3}

echo "== copydetect venv: $PEERS_VENV"
[ -x "$PEERS_VENV/bin/python" ] || "$PYTHON" -m venv "$PEERS_VENV"
"$PEERS_VENV/bin/pip" install --quiet --upgrade pip
"$PEERS_VENV/bin/pip" install --quiet "copydetect==0.5.0" numpy
"$PEERS_VENV/bin/python" -c 'import copydetect, numpy; print("copydetect ok, numpy", numpy.__version__)'

echo "== Dolos: $DOLOS_DIR"
mkdir -p "$DOLOS_DIR"
(
  cd "$DOLOS_DIR"
  [ -f package.json ] || npm init -y >/dev/null
  npm install --silent --no-audit --no-fund "@dodona/dolos-lib@3.5.1"
)
cp -f "$SHARED_PEERS/score_dolos.mjs" "$DOLOS_DIR/"
node -e 'console.log("dolos-lib", require(process.argv[1]).version)' \
  "$DOLOS_DIR/node_modules/@dodona/dolos-lib/package.json"
echo "== peers ready"
