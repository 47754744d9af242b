"""Reliability tests (issue 4): crashes, concurrency, bad and hostile input, schema versions."""
