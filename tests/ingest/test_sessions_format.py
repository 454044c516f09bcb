"""The session event format and the pure rules: parsing, signatures, dedup, scope overlap."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphdb.sessions import scope_matches, scopes_overlap
from ingest.sessions.dedup import (
    DedupIndex,
    _words,
    entry_hash,
    entry_key,
    mask_of,
    normalize_text,
    similarity,
    trigram_mask,
    trigrams,
)
from ingest.sessions.format import (
    FORMAT_VERSION,
    EntryEvent,
    OutcomeEvent,
    SessionStart,
    TouchEvent,
    parse_lines,
)
from ingest.sessions.plan import _NS, _uuid5, event_entry_id, paper_ref
from ingest.sessions.signature import failure_signature, normalize_error
from tests.helpers import ROOT

EXAMPLE = ROOT / "datasets" / "sessions" / "example-session.jsonl"


def line(**fields: object) -> str:
    return json.dumps({"ts": "2026-11-02T09:00:00Z", "session": "s", **fields})


def test_example_session_parses_without_issues() -> None:
    parsed = parse_lines(EXAMPLE.read_bytes().splitlines(), file="example")
    assert parsed.issues == []
    assert parsed.lines == len(parsed.events) == 21
    start = parsed.events[0]
    assert isinstance(start, SessionStart)
    assert (start.agent, start.model, start.repo, start.user_email) == (
        "claude-code", "claude-opus-4", "vectorgraphdb", "ada@vectorgraphdb.dev")
    assert start.ts == datetime(2026, 11, 2, 9, 0)  # naive UTC
    kinds = [e.type for e in parsed.events]
    assert kinds.count("decision") == 3 and kinds.count("failure") == 2


def test_each_bad_line_is_reported_with_its_number_and_good_lines_are_kept() -> None:
    lines = [
        line(type="session_start", agent="a"),                       # 1 ok
        "{not json",                                                  # 2
        line(type="telepathy", title="x"),                           # 3 unknown type
        line(type="decision", title="d", v=FORMAT_VERSION + 1),      # 4 newer version
        line(type="decision"),                                        # 5 no title
        json.dumps({"type": "note", "title": "n", "session": "s"}),  # 6 no ts
        line(type="note", title="n", ts="yesterday"),                # 7 bad ts
        line(type="decision", title="d", scope=[1, 2]),              # 8 bad scope
        line(type="outcome", resolution="r", outcome="great"),       # 9 bad outcome
        "[1, 2]",                                                     # 10 not an object
        "",                                                           # 11 blank: ignored
        line(type="note", title="kept", colour="blue"),              # 12 ok, warning
        b"\xff\xfe",                                                  # 13 not UTF-8
        line(type="decision", title="d", v=0),                       # 14 bad version
    ]
    parsed = parse_lines(lines, file="f.jsonl")
    errors = {i.line: i.message for i in parsed.issues if i.severity == "error"}
    assert sorted(errors) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14]
    assert errors[2].startswith("not valid JSON")
    assert errors[3].startswith("unknown event type 'telepathy' (known: session_start")
    assert errors[4] == ("format version 2 is newer than this reader understands (1); line "
                         "skipped (upgrade vectorgraphdb)")
    assert errors[5] == "decision: missing required field 'title'"
    assert errors[6] == "note: missing required field 'ts'"
    assert errors[7] == "not an ISO 8601 timestamp: 'yesterday'"
    assert errors[8] == "field 'scope' must be a string or a list of strings"
    assert errors[9].startswith("outcome must be one of success, partial, pending, failed")
    assert errors[10] == "a line must hold a JSON object"
    assert errors[13].startswith("not UTF-8")
    assert errors[14] == "field 'v' must be a positive integer"
    warnings = [(i.line, i.message) for i in parsed.issues if i.severity == "warning"]
    assert warnings == [(12, "note: unknown field 'colour' ignored")]
    assert [(type(e).__name__, e.line) for e in parsed.events] == [
        ("SessionStart", 1), ("EntryEvent", 12)]
    assert parsed.lines == 14


def test_fields_are_typed_and_normalized() -> None:
    parsed = parse_lines([
        line(type="failure", error="Traceback ...\n  KeyError: 'x'\n", category=" Kuzu ",
             file="./graphdb/loader.py", ts="2026-11-02T10:00:00+02:00"),
        line(type="resolution", title="r", resolves="f1"),
        line(type="outcome", resolution="r1", outcome="worsened"),
        line(type="file_read", path="a.py", paths=["b.py", "a.py"]),
        line(type="intent", title="i", scope="graphdb/**", expires_at="2026-12-01"),
    ])
    assert parsed.issues == []
    failure, resolution, outcome, touch, intent = parsed.events
    assert isinstance(failure, EntryEvent)
    assert (failure.title, failure.category, failure.path) == (
        "KeyError: 'x'", "kuzu", "./graphdb/loader.py")
    assert failure.ts == datetime(2026, 11, 2, 8, 0)  # +02:00 -> UTC
    assert (resolution.resolves, resolution.outcome) == (("f1",), "pending")
    assert isinstance(outcome, OutcomeEvent) and outcome.outcome == "worsened"
    assert isinstance(touch, TouchEvent) and touch.paths == ("b.py", "a.py")
    assert intent.scope == ("graphdb/**",) and intent.expires_at == datetime(2026, 12, 1)


# ------------------------------------------------------------------------------- signatures
def test_failure_signature_ignores_lines_quotes_and_addresses() -> None:
    a = "KeyError: 'user_42' at graphdb/loader.py:120 (object at 0x7f3a2b)"
    b = 'KeyError: "user_7" at graphdb/loader.py:98:4 (object at 0x55aa01)'
    assert normalize_error(a) == "KeyError: '…' at graphdb/loader.py:<n> (object at <addr>)"
    assert failure_signature(a, "Kuzu", "./graphdb/loader.py") == failure_signature(
        b.replace('"user_7"', "'user_7'"), "kuzu", "graphdb/loader.py")
    assert normalize_error('File "/home/u/x.py", line 33, in f') == 'File "…", line <n>, in f'
    assert normalize_error("id 123e4567-e89b-12d3-a456-426614174000 gone") == "id <uuid> gone"
    assert failure_signature(a, "kuzu", "a.py") != failure_signature(a, "kuzu", "b.py")
    assert failure_signature(a, "kuzu", "a.py") != failure_signature(a, "io", "a.py")


# ------------------------------------------------------------------------------------ dedup
def test_hash_is_normalized_and_similarity_is_trigram_jaccard() -> None:
    assert entry_hash("insight", "Kuzu", "COPY is  fast!", "540K/s") == entry_hash(
        "insight", "kuzu", "copy is fast", "540k s")
    assert entry_hash("insight", "kuzu", "a", "") != entry_hash("pattern", "kuzu", "a", "")
    assert similarity("abc", "abc") == 1.0
    # pg_trgm: "cat" -> {"  c", " ca", "cat", "at "}; "cab" shares 2 of 6 distinct trigrams
    assert similarity("cat", "cab") == pytest.approx(2 / 6)


def test_dedup_index_finds_near_duplicates_only_above_the_threshold() -> None:
    text = ("A rel COPY into a populated table costs 0.5 s at commit because Kuzu rebuilds "
            "the adjacency of the rel table")
    other = "Leiden on a million edges takes 1.5 s with igraph"
    near = text.replace("0.5 s", "0.5s")
    far = "A rel COPY into a table is fast"
    index = DedupIndex()
    index.add("e1", "h1", trigrams(text))
    index.add("e2", "h2", trigrams(other))
    assert index.find("h1", trigrams("anything")) == ("e1", 1.0)
    hit = index.find("hx", trigrams(near))
    assert hit is not None and hit[0] == "e1"
    assert hit[1] == pytest.approx(similarity(text, near)) and hit[1] >= 0.9
    assert index.find("hx", trigrams(far)) is None
    assert index.find("h1", trigrams(text), exclude=frozenset({"e1"})) is None
    index.remove("e1")
    assert index.find("h1", trigrams(text)) is None


# ------------------------------------------------------------------------------------ scopes
@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("graphdb/**", "graphdb/loader.py", True),
    ("graphdb/**", "graphdb", False),
    ("graphdb/", "graphdb/sub/x.py", True),
    ("**/*.py", "ingest/sessions/plan.py", True),
    ("**/*.py", "top.py", True),
    ("graphdb/*.py", "graphdb/sub/x.py", False),
    ("graphdb/?oader.py", "graphdb/loader.py", True),
    ("tests/test_[ab].py", "tests/test_b.py", True),
    ("graphdb.Store.*", "graphdb.Store.write", True),
])
def test_scope_globs(glob: str, path: str, expected: bool) -> None:
    assert scope_matches(glob, path) is expected


def test_scopes_overlap_rule() -> None:
    assert scopes_overlap(["graphdb/loader.py"], ["graphdb/loader.py"])
    assert scopes_overlap(["graphdb/**"], ["graphdb/loader.py"])  # one covers the other
    assert scopes_overlap(["graphdb/loader.py"], ["graphdb/**"])
    assert scopes_overlap([], ["x.py"])  # no scope: the whole repository
    assert not scopes_overlap(["graphdb/*.py"], ["**/loader.py"])
    assert scopes_overlap(["graphdb/*.py"], ["**/loader.py"], ["graphdb/loader.py"])
    assert not scopes_overlap(["graphdb/*.py"], ["**/loader.py"], ["ingest/loader.py"])
    assert not scopes_overlap(["graphdb/**"], ["ingest/**"], ["graphdb/a.py", "ingest/b.py"])


def test_paper_references() -> None:
    assert paper_ref("doi:10.1038/S41598-019-41695-z") == (
        "paper:doi:10.1038/s41598-019-41695-z",
        {"doi": "10.1038/s41598-019-41695-z", "arxiv": ""})
    assert paper_ref("https://doi.org/10.1145/3318464.3380574")[0] == (
        "paper:doi:10.1145/3318464.3380574")
    assert paper_ref("arXiv:1810.08473v3")[0] == "paper:arxiv:1810.08473"
    assert paper_ref({"arxiv": "1810.08473", "title": "From Louvain to Leiden"})[1][
        "title"] == "From Louvain to Leiden"
    assert paper_ref("https://kuzudb.com/docs") is None
    assert paper_ref("From Louvain to Leiden") is None


_WORDS = st.sampled_from(["copy", "kuzu", "commit", "rel", "table", "a", "populated", "0.5",
                          "s", "rebuilds", "graph", "delta", "x"])


@given(st.lists(st.lists(_WORDS, min_size=1, max_size=12), min_size=1, max_size=12),
       st.lists(_WORDS, min_size=1, max_size=12), st.floats(0.5, 0.95))
def test_dedup_index_equals_brute_force(stored: list[list[str]], probe: list[str],
                                        threshold: float) -> None:
    """The partition filter never misses a pair above the threshold (nor finds one below);
    among equally similar entries the first indexed wins."""
    texts = [" ".join(words) for words in stored]
    query = " ".join(probe)
    index = DedupIndex(threshold=threshold)
    for n, text in enumerate(texts):
        index.add(f"e{n}", f"h{n}", trigrams(text))
    scores = [similarity(text, query) for text in texts]
    hit = index.find("none", trigrams(query))
    if max(scores) >= threshold:
        assert hit is not None and hit[1] == pytest.approx(max(scores))
        assert hit[0] == f"e{scores.index(hit[1])}"
    else:
        assert hit is None


@given(st.text(max_size=40), st.text(max_size=40))
def test_trigram_masks_and_entry_key_agree_with_the_sets(title: str, content: str) -> None:
    """The bitmasks the index stores are the trigram sets; entry_key is entry_hash plus the
    mask of ``title + "\\n" + content`` (words found once for both)."""
    text = f"{title}\n{content}"
    assert trigram_mask(text) == mask_of(trigrams(text))
    assert trigram_mask(text).bit_count() == len(trigrams(text))
    assert entry_key("note", "Perf", title, content) == (
        entry_hash("note", "Perf", title, content), trigram_mask(text))
    assert normalize_text(text) == " ".join(
        re.sub(r"[^\w]+", " ", text.lower()).split())


@given(st.text(max_size=60) | st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_words_are_the_regex_words_of_the_lower_cased_text(text: str) -> None:
    """The ASCII fast path finds exactly the words ``\\w+`` finds (and so does the other)."""
    assert _words(text) == re.findall(r"\w+", text.lower())


@given(st.text(max_size=60))
def test_entry_ids_are_uuid5_of_the_session_and_key(name: str) -> None:
    assert _uuid5(name) == str(uuid.uuid5(_NS, name))
    key = name or "k"
    expected = uuid.uuid5(_NS, "session:s\x1f" + key)
    assert event_entry_id("session:s", key) == f"entry:{expected}"


def test_a_lone_surrogate_escape_is_a_bad_line_not_a_crash(store, tmp_path) -> None:
    """JSON may escape half a UTF-16 pair ("\\ud800"); the line is reported, the rest loads."""
    from ingest.sessions import load_sessions

    good = line(type="decision", title="keep me", category="c")
    bad = '{"v": 1, "type": "note", "ts": "2026-11-02T09:00:00Z", "session": "s", ' \
          '"title": "broken \\ud800 text"}'
    parsed = parse_lines([line(type="session_start", agent="a"), bad, good])
    assert [(i.line, i.severity) for i in parsed.issues] == [(2, "error")]
    assert "lone surrogate" in parsed.issues[0].message
    assert len(parsed.events) == 2
    paired = parse_lines([bad.replace("\\ud800", "\\ud83d\\ude00")])
    assert paired.issues == [] and paired.events[0].title == "broken \U0001F600 text"
    log = tmp_path / "s.jsonl"
    log.write_text("\n".join([line(type="session_start", agent="a"), bad, good]) + "\n",
                   encoding="utf-8")
    summary = load_sessions(store, [log]).to_dict()
    assert summary["counts"]["entries"] == 1
