"""A SparkSession for winnowdb's jobs.

Under spark-submit (or in a notebook) the session that already exists is used as it is: the
cluster manager, memory and parallelism are the submitter's choice. Otherwise a local session is
started: master ``$WINNOWDB_SPARK_MASTER`` or ``local[*]``, no web UI, a number of shuffle
partitions suited to one machine, workers running this Python interpreter (unless
``$PYSPARK_PYTHON`` names another), and quiet logging (errors only; ``log4j2.properties`` here).
Under spark-submit (``PYSPARK_GATEWAY_PORT`` is set) no master is chosen here: spark-submit's own
``--master`` and ``--conf`` apply.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import WinnowError

__all__ = ["get_session", "require_spark"]


def require_spark() -> None:
    """Raise a one-line WinnowError when pyspark or a Java runtime is missing."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise WinnowError("pyspark is not installed: pip install '.[spark]' in the winnowdb source folder")
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        raise WinnowError("Spark needs a Java runtime (17 or newer): install one or set JAVA_HOME")


def get_session(master: str | None = None, *, app_name: str = "winnowdb", conf: dict | None = None):
    """The active SparkSession, or a new one (local unless ``master`` says otherwise).

    ``conf`` entries are applied to a new session (and the runtime-settable SQL ones to an
    existing one). Spark's ANSI mode is left on: the SQL files are written for it.
    """
    require_spark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        for key, value in (conf or {}).items():
            if key.startswith("spark.sql."):
                active.conf.set(key, str(value))
        return active
    builder = SparkSession.builder.appName(app_name)
    if master is None and "PYSPARK_GATEWAY_PORT" in os.environ:
        master = ""  # started by spark-submit: its --master (and other settings) apply
    else:
        master = master or os.environ.get("WINNOWDB_SPARK_MASTER") or "local[*]"
        builder = builder.master(master)
    settings = {}
    if master.startswith("local"):
        settings = {
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": str(max(2, 2 * (os.cpu_count() or 2))),
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            # no spark-warehouse/ folder in the working directory (winnowdb uses temp views only)
            "spark.sql.warehouse.dir": os.path.join(tempfile.gettempdir(), "winnowdb-spark-warehouse"),
        }
        if not os.environ.get("PYSPARK_PYTHON"):  # the workers run this Python (and its packages),
            os.environ["PYSPARK_PYTHON"] = sys.executable  # not whatever python3 is on PATH
        quiet = Path(__file__).with_name("log4j2.properties")
        if quiet.exists():
            settings["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile={quiet.as_uri()}"
    for key, value in (conf or {}).items():
        if key == "spark.driver.extraJavaOptions" and key in settings:
            value = f"{value} {settings[key]}"  # keep the quiet logging unless told otherwise
        settings[key] = str(value)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("WINNOWDB_SPARK_LOG_LEVEL", "ERROR"))
    return spark
