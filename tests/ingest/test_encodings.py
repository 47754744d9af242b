"""Every encoding read right: files that are not UTF-8 and have no BOM are decoded in the encoding
charset-normalizer finds (Shift-JIS, GBK, EUC-KR, ...), not as Windows-1252 mojibake, while
Western legacy text is still read as Windows-1252 (Latin-1) as before, UTF-8 never reaches the
detector, and the encoding used is the one ``documents.encoding`` records."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import winnowdb
from winnowdb.ingest import read
from winnowdb.ingest.read import decode_bytes

#: real sentences, written here as Unicode and encoded in their legacy encoding by the tests
JAPANESE = ("吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"
            "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。")
CHINESE = ("床前明月光，疑是地上霜。举头望明月，低头思故乡。"
           "这首诗是唐代诗人李白所作，表达了游子思念家乡的感情。")
KOREAN = ("대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다. "
          "모든 국민은 인간으로서의 존엄과 가치를 가진다.")
RUSSIAN = ("Все люди рождаются свободными и равными в своем достоинстве и правах. Они наделены "
           "разумом и совестью и должны поступать в отношении друг друга в духе братства.")
FRENCH = ("Tous les êtres humains naissent libres et égaux en dignité et en droits. Ils sont doués de "
          "raison et de conscience et doivent agir les uns envers les autres dans un esprit de fraternité.")
DANISH = ("Alle mennesker er født frie og lige i værdighed og rettigheder. De er udstyret med fornuft "
          "og samvittighed, og de bør handle mod hverandre i en broderskabets ånd.")
ENGLISH_1252 = ("He said “hello” — and then left… It’s fine, isn’t it? The price was 5 € or £4, "
                "and the café’s crème brûlée was sold out.")

#: (name, text, the encoding it is written in, the names that may be recorded for it: the
#: detector may name a superset that decodes the same bytes to the same text)
FOREIGN = [
    ("japanese_shift_jis", JAPANESE, "shift_jis", {"shift_jis", "cp932", "shift_jis_2004", "shift_jisx0213"}),
    ("chinese_gbk", CHINESE, "gbk", {"gbk", "gb18030", "gb2312"}),
    ("korean_euc_kr", KOREAN, "euc_kr", {"euc_kr", "cp949"}),
    ("russian_cp1251", RUSSIAN, "cp1251", {"cp1251"}),
]

#: Western legacy text: read as Windows-1252, as before the detector (which guesses poorly
#: between Latin code pages: it reads this French as cp1250 and this Danish as johab, Korean)
WESTERN = [
    ("french_latin1", FRENCH, "latin-1"),
    ("french_cp1252", FRENCH, "cp1252"),
    ("danish_latin1", DANISH, "latin-1"),
    ("english_cp1252", ENGLISH_1252, "cp1252"),
]


@pytest.mark.parametrize("name,text,encoding,names", FOREIGN, ids=[c[0] for c in FOREIGN])
def test_foreign_text_is_decoded_in_its_own_encoding(name, text, encoding, names):
    data = text.encode(encoding)
    decoded, used = decode_bytes(data)
    assert decoded == text, f"{name}: read as {used}: {decoded[:40]!r}"
    assert used in names
    assert data.decode(used) == text  # the name recorded is the codec that decodes the file


@pytest.mark.parametrize("name,text,encoding", WESTERN, ids=[c[0] for c in WESTERN])
def test_western_legacy_text_is_read_as_windows_1252_as_before(name, text, encoding):
    assert decode_bytes(text.encode(encoding)) == (text, "cp1252")


def test_bytes_windows_1252_leaves_undefined_are_read_as_latin_1_as_before():
    data = FRENCH.encode("latin-1") + b" \x81\x8d "  # 0x81 and 0x8D have no Windows-1252 character
    assert decode_bytes(data) == (data.decode("latin-1"), "latin-1")


def test_invalid_utf8_in_english_is_read_as_windows_1252_as_before():
    good = "The winnowing algorithm selects fingerprints from hashes of k-grams. " * 20
    data = good.encode() + b" \xff\xfe\xc3\x28 " + good.encode()
    assert decode_bytes(data) == (data.decode("cp1252"), "cp1252")


@pytest.mark.parametrize("data,expected", [
    (b"caf\xe9", ("café", "cp1252")),             # detector's first guess: UTF-16-BE
    (b"na\xefve", ("naïve", "cp1252")),
    (b"\xe9", ("é", "cp1252")),
    (b"\x93quoted\x94", ("“quoted”", "cp1252")),
])
def test_short_ambiguous_files_are_read_as_windows_1252(data, expected):
    assert decode_bytes(data) == expected


@pytest.mark.parametrize("text,encoding", [("日本語のテキスト", "shift_jis"), ("中文文本", "gbk"),
                                           ("한국어 텍스트", "euc_kr")])
def test_very_short_cjk_is_decoded_losslessly_and_the_same_way_every_time(text, encoding):
    """Two to eight characters are too few to tell the CJK encodings apart (the detector reads
    this Chinese as Korean): whatever is chosen decodes every byte, and always the same way."""
    data = text.encode(encoding)
    decoded, used = decode_bytes(data)
    assert decoded.encode(used) == data
    assert all(decode_bytes(data) == (decoded, used) for _ in range(3))


def test_a_large_file_is_detected_from_its_start_and_decoded_whole():
    """The detector reads the first 256 KiB (cut at a line end or space, never inside a
    character); the encoding it finds decodes the whole file, or Windows-1252 / Latin-1 is used."""
    lines = (JAPANESE + "\n") * 8000  # 2 MB of Shift-JIS
    assert decode_bytes(lines.encode("shift_jis"))[0] == lines
    one_line = JAPANESE * 8000  # no line end nor space to cut at: the detector reads it all
    assert decode_bytes(one_line.encode("shift_jis"))[0] == one_line
    spoilt = lines.encode("shift_jis") + b"\x81\x20 end"  # not Shift-JIS after the first 256 KiB
    text, used = decode_bytes(spoilt)
    assert used in ("cp1252", "latin-1") and text == spoilt.decode(used.replace("-", "_"))


def test_utf8_and_bom_files_never_reach_the_detector(monkeypatch):
    def no_detector(*_args, **_kwargs):
        raise AssertionError("the encoding detector ran")

    monkeypatch.setattr(read, "_detect", no_detector)
    cases = [
        (b"", ("", "utf-8")),
        (b"plain ASCII", ("plain ASCII", "utf-8")),
        (JAPANESE.encode("utf-8"), (JAPANESE, "utf-8")),
        (b"\xef\xbb\xbf" + FRENCH.encode("utf-8"), (FRENCH, "utf-8")),
        (KOREAN.encode("utf-16"), (KOREAN, "utf-16")),
        (CHINESE.encode("utf-32"), (CHINESE, "utf-32")),
    ]
    for data, expected in cases:
        assert decode_bytes(data) == expected
    # binary is told before any detection: NUL bytes, many control characters
    assert decode_bytes(b"text with a NUL\x00 byte") is None
    assert decode_bytes(KOREAN.encode("utf-16-le")) is None  # UTF-16 without a BOM, as before
    assert decode_bytes(bytes(range(1, 32)) * 10 + b"\xe9") is None


_DECODE_ALL = """
import json, sys
from winnowdb.ingest.read import decode_bytes
blobs = [bytes.fromhex(h) for h in json.loads(sys.stdin.read())]
print(json.dumps([decode_bytes(b) for b in blobs]))
"""


def test_decoding_is_the_same_in_every_process():
    """The same bytes decode the same way in any worker, whatever its hash seed (offsets stored in
    the index point into that text; import and upgrade read files again)."""
    blobs = [text.encode(enc) for _, text, enc, _ in FOREIGN] + [text.encode(enc) for _, text, enc in WESTERN]
    blobs += [b"caf\xe9", "日本語のテキスト".encode("shift_jis"), "中文文本".encode("gbk")]
    outputs = set()
    for seed in ("0", "1", "12345"):
        done = subprocess.run([sys.executable, "-c", _DECODE_ALL], input=json.dumps([b.hex() for b in blobs]),
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1
    here = json.loads(outputs.pop())
    assert [tuple(x) for x in here] == [decode_bytes(b) for b in blobs]


def _encodings(db) -> dict[str, str]:
    with winnowdb.open(db) as idx:
        _, rows = idx.sql("SELECT path, encoding FROM documents")
    return {os.path.basename(path): enc for path, enc in rows}


def test_add_records_the_encoding_used_and_a_utf8_copy_matches(tmp_path):
    """After a real add: documents.encoding names each file's encoding, the stored text is the
    real text, and a UTF-8 copy of a Shift-JIS file is found as the copy it is."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text, encoding, _ in FOREIGN:
        (corpus / f"{name}.txt").write_bytes(text.encode(encoding))
    for name, text, encoding in WESTERN:
        (corpus / f"{name}.txt").write_bytes(text.encode(encoding))
    (corpus / "japanese_utf8.txt").write_bytes(JAPANESE.encode("utf-8"))
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        summary = idx.add([corpus])
        assert summary.added == len(FOREIGN) + len(WESTERN) + 1 and not summary.skipped
    encodings = _encodings(db)
    for name, _, _, names in FOREIGN:
        assert encodings[f"{name}.txt"] in names
    for name, _, _ in WESTERN:
        assert encodings[f"{name}.txt"] == "cp1252"
    assert encodings["japanese_utf8.txt"] == "utf-8"
    with winnowdb.open(db) as idx:
        _, rows = idx.sql("SELECT d.path, t.text FROM documents d JOIN document_texts t USING (doc)")
        texts = {os.path.basename(p): t for p, t in rows}
        assert texts["japanese_shift_jis.txt"] == texts["japanese_utf8.txt"] == JAPANESE
        assert texts["chinese_gbk.txt"] == CHINESE and texts["korean_euc_kr.txt"] == KOREAN
        pairs = {frozenset(os.path.basename(x) for x in (p["a"], p["b"])): p for p in idx.pairs(top=0)}
    both = pairs[frozenset({"japanese_shift_jis.txt", "japanese_utf8.txt"})]
    assert both["resemblance"] == 1.0


def test_the_same_document_added_twice_gets_the_same_encoding(tmp_path):
    """A copy under another name, in a second add, and the same file added to a second index (in
    worker processes): the same bytes, the same encoding and text."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    for name, text, encoding, _ in FOREIGN:
        (one / f"{name}.txt").write_bytes(text.encode(encoding))
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([one], jobs=2)
    for name, *_ in FOREIGN:
        shutil.copy(one / f"{name}.txt", two / f"{name}.txt")
    with winnowdb.open(db) as idx:
        idx.add([two], jobs=1)
    with winnowdb.open(db) as idx:
        _, rows = idx.sql("SELECT path, encoding, content_hash FROM documents ORDER BY path")
    by_folder = {}
    for path, enc, digest in rows:
        by_folder.setdefault(os.path.basename(os.path.dirname(path)), {})[os.path.basename(path)] = (enc, digest)
    assert by_folder["one"] == by_folder["two"]
    other = tmp_path / "other.duckdb"
    with winnowdb.open(other) as idx:
        idx.add([one])
    assert _encodings(other) == _encodings(db) | {n: e for n, (e, _) in by_folder["one"].items()}
