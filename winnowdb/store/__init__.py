"""Stage 4 of the data flow: the DuckDB index file, the only place that talks to DuckDB.

``database`` opens or creates an index and runs the ``sql/`` files (``sqlfiles`` loads and binds
them); ``schema`` makes the tables and views and upgrades old schemas; ``writes`` stores batches,
huge documents and removals, one transaction each; ``stats`` keeps the statistics (df, the
default --max-df); ``check`` verifies an index; ``export`` writes and reads the Parquet layout;
``output`` has DuckDB write a query's result as CSV or JSON; ``dbfile`` guards the file itself;
``interrupts`` handles Ctrl-C around commits; ``lifetime`` records that the process ends at once
after its command (the CLI), so closing an index may leave DuckDB's memory for the exit to free.
"""
