"""``python -m winnowdb.spark`` and the spark-submit entry point: the ``winnowdb spark`` commands.

    spark-submit --master yarn "$(python -c 'import winnowdb.spark.__main__ as m; print(m.__file__)')" \
        fingerprint hdfs:///lists/files.txt hdfs:///winnow/corpus
    python -m winnowdb.spark pairs /data/corpus-parquet /data/pairs

Absolute imports only: spark-submit runs this file as a script, not as part of the package.
"""
import sys

from winnowdb.cli.spark import spark_app


def main() -> None:
    try:
        spark_app(prog_name="python -m winnowdb.spark")
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
