"""Stage 3 of the data flow: fingerprints of a sequence of units.

* ``hashing``: the hashing primitives (splitmix64, murmur3's finalizer, the k-gram polynomial
  over prefix sums, segment hashes), deterministic on every machine;
* ``winnow``: robust winnowing and the other selections (every k-gram, MOD_m), giving each
  fingerprint its hash, position and span in the original text;
* ``simhash``: Charikar's 64-bit simhash of a document's features, and Hamming distances.
* ``batch``: the k-gram hashes, selections, fingerprints and simhashes of many documents in one
  pass over their concatenation, equal to those of each document alone.

Everything works on numpy arrays of unit ids (``normalize`` makes them) and depends on nothing
else in winnowdb.
"""
