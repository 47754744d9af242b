#!/usr/bin/env bash
# Node driver for the Dolos peer: score every truth.csv pair of a labelled dataset with Dolos.
#
# usage: bench/peers/dolos.sh DATASET_DIR LANGUAGE OUT.csv
#   DATASET_DIR  holds docs/ and truth.csv (see /work/shared/eval/README.md)
#   LANGUAGE     a Dolos language: java | c | cpp | python | javascript | ... | char (plain text)
#   OUT.csv      written as doc_a,doc_b,score; one JSON line with the timing goes to stdout
#
# Runs the shared score_dolos.mjs from $DOLOS_DIR (default /tmp/winnowdb-dolos, made by
# bench/peers/setup.sh): ES modules ignore NODE_PATH, so the script must sit beside the
# node_modules it imports from. Dolos keeps every pair in memory; the heap limit is raised
# (DOLOS_HEAP_MB, default 8192) so that larger sets do not die at node's default limit.
set -euo pipefail

if [ $# -ne 3 ]; then
  sed -n '2,13p' "$0" >&2; exit 2
fi
DOLOS_DIR=${DOLOS_DIR:-/tmp/winnowdb-dolos}
DOLOS_HEAP_MB=${DOLOS_HEAP_MB:-8192}
if [ ! -f "$DOLOS_DIR/score_dolos.mjs" ] || [ ! -d "$DOLOS_DIR/node_modules/@dodona/dolos-lib" ]; then
  echo "dolos.sh: Dolos not set up in $DOLOS_DIR (run bench/peers/setup.sh)" >&2
  exit 3
fi
exec node --max-old-space-size="$DOLOS_HEAP_MB" "$DOLOS_DIR/score_dolos.mjs" "$1" "$2" "$3"
