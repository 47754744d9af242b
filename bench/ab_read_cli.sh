#!/bin/bash
# A/B of the read commands between two winnowdb checkouts on two 100,000-document indexes, each
# built by its own tree (schemas may differ): alternating fresh processes, GNU time's wall and
# peak RSS per run, appended to /tmp/ab-read.raw as "tree|command|seconds|KB".
# usage: bench/ab_read_cli.sh RUNS OLD_TREE NEW_TREE OLD_DB NEW_DB   (run it from outside both
# trees: `python -m winnowdb` would import a winnowdb/ in the working directory first)
# data: bench/corpora.py generated100000 in /tmp/bench-data, and bench/scale.py's not-indexed file
set -e
D=/tmp/bench-data; G=$D/generated100000; PY=${PYTHON:-python3}
RUNS=$1; OLD_TREE=$2; NEW_TREE=$3; OLD_DB=$4; NEW_DB=$5
for cmd in "stats" "compare $G/doc44505.txt $G/doc75615.txt" "query $G/doc44505.txt" "query $D/scale-not-indexed-100000.txt" "pairs --top 10"; do
  for r in $(seq 1 "$RUNS"); do
    for t in old new; do
      tree=$OLD_TREE; db=$OLD_DB; [ $t = new ] && tree=$NEW_TREE && db=$NEW_DB
      /usr/bin/time -f "$t|$cmd|%e|%M" env PYTHONPATH="$tree" "$PY" -m winnowdb $cmd --db "$db" > /dev/null \
        2>> /tmp/ab-read.raw || echo "FAIL $t $cmd"
    done
  done
done
