"""Bytes of a bibliographic file -> text, saying how it was decoded (or why it was not).

BibTeX files in particular are old and copied around: many are Latin-1 or Windows-1252,
some were saved as UTF-16 by an editor, and a binary file can carry a ``.bib`` name. Text
with a byte-order mark is decoded by it; UTF-8 as is; other text as Windows-1252 (else
Latin-1) with a warning naming the first line that is not UTF-8, so accented names are read
right and the user knows; binary content (NUL or control bytes) is refused with an error.
"""

from __future__ import annotations

import codecs

from ingest.academic.records import Issue

__all__ = ["decode_text"]

#: byte-order marks, longest first (UTF-32-LE's begins with UTF-16-LE's)
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
#: C0 control bytes text does not hold (tab, newlines, form feed and ESC excepted)
_CONTROL = frozenset(range(32)) - {9, 10, 11, 12, 13, 27}
#: more control bytes than this share of the file: binary, not text in a legacy encoding
_MAX_CONTROL = 0.01


def decode_text(data: bytes, *, path: str) -> tuple[str | None, list[Issue]]:
    """``(text, issues)``; text is None when the bytes are not text (an error says why)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), _noted(path, codec, bom)
            except UnicodeDecodeError as exc:
                return None, [Issue(path, _line(data, exc.start), f"starts with a {codec} "
                                    f"byte-order mark but is not {codec}: {exc.reason}; not "
                                    "read")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        bad = exc.start
    if b"\x00" in data or sum(b in _CONTROL for b in data) > _MAX_CONTROL * len(data):
        return None, [Issue(path, 1, "binary content (NUL or control bytes), not text (a "
                                     "UTF-16 file needs its byte-order mark); not read")]
    for codec in ("cp1252", "latin-1"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        name = "Windows-1252" if codec == "cp1252" else "Latin-1"
        return text, [Issue(path, _line(data, bad), f"not UTF-8 (first at this line): "
                                                    f"decoded as {name}; check accented "
                                                    "characters, or save the file as UTF-8",
                            "warning")]
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def _noted(path: str, codec: str, bom: bytes) -> list[Issue]:
    if codec == "utf-8-sig":
        return []  # a UTF-8 byte-order mark changes nothing
    return [Issue(path, 1, f"decoded as {codec.upper()} (byte-order mark {bom.hex()})",
                  "warning")]


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
