"""Stage 1 of the data flow, and its orchestration: files become stored documents.

``walk`` finds the files, ``read`` decodes them, ``languages`` says which are code; ``document``
is the recipe of one document (normalizer, units, fingerprints, simhash) that every path shares;
``prepare`` runs it per file in ``workers``; ``placement`` decides submissions and labels;
``batches`` commit finished documents; ``pipeline`` is ``add`` end to end, ``segmented`` and
``huge`` handle documents too long to fingerprint whole, ``retokenize`` is ``upgrade``'s
re-fingerprinting of code, and ``remove`` drops documents.
"""
