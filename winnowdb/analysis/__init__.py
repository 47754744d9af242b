"""Stage 5 of the data flow: the questions asked of an index, each answered by its ``sql/`` file(s).

``sides`` is the read path every analysis shares (the sides of a comparison, their fingerprints,
the max-df in force). Then one module per question: ``query`` (documents sharing passages with
one document), ``pairs`` (all-vs-all), ``compare`` and ``passages`` (the passages two sides
share), ``stats``, ``files`` (labels, files gone or changed), ``duplicates``, ``sketches``,
``clusters`` and ``near_duplicates`` (simhash search).
"""
