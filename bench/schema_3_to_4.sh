#!/bin/sh
# Toggle an index between schema 3 and 4 in place, for bench/ab_query.py's --prepare-old and
# --prepare-new (the common hashes, issue 20): `schema_3_to_4.sh old DB` drops what schema 4 added
# (common_hashes and its meta key) and records schema 3; `schema_3_to_4.sh new DB` upgrades it
# again with the winnowdb on PYTHONPATH (the migration fills common_hashes).
set -e
case "$1" in
old) python -c "import duckdb, sys; con = duckdb.connect(sys.argv[1]); con.execute('DROP TABLE IF EXISTS common_hashes'); con.execute(\"DELETE FROM meta WHERE key = 'common_hashes_max_df'\"); con.execute(\"UPDATE settings SET value = '3' WHERE key = 'schema_version'\"); con.close()" "$2" ;;
new) python -m winnowdb upgrade --db "$2" ;;
*) echo "usage: $0 old|new DB" >&2; exit 2 ;;
esac
