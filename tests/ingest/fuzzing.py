"""Generated hostile inputs for every parser of ``ingest/``, and the contract each must meet.

Shared by the property tests (``test_fuzz_parsers.py``, a bounded sample in CI) and the
seeded long run (``benchmarks/fuzz_parsers.py``). Each check feeds one generated input to
the real parser (files are written to disk where the parser reads files; git data becomes
a real repository) and returns ``"parsed"`` or ``"bad"`` (reported as the parser documents:
an issue with file and line, a skipped file with a reason, or a typed ``VgdbError``). Any
other exception is a crash, and so is a parsed result holding a string that cannot be
stored (a lone surrogate: Kuzu, JSON and terminals refuse it) or an issue without a reason.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
from hypothesis import strategies as st

from ingest.academic.bibtex import parse_bibtex
from ingest.academic.cff import parse_cff
from ingest.academic.codemeta import parse_codemeta
from ingest.academic.jsonrecords import parse_json_records
from ingest.academic.records import ParseResult
from ingest.academic.references import find_references
from ingest.academic.sources import parse_bibliography
from ingest.batch.manifest import load_manifest
from ingest.coverage import read_coverage
from ingest.extract import EXTENSIONS
from ingest.history.gitlog import read_history
from ingest.sessions.format import parse_lines
from ingest.walk import walk
from ingest.worker import ParseTask, parse_file
from schema import ParseStatus, VgdbError

__all__ = ["PARSERS", "Parser", "storable"]

Outcome = str  # "parsed" | "bad"


@dataclasses.dataclass(frozen=True)
class Parser:
    """A parser under test: how to generate its input and how to check one."""

    name: str
    inputs: st.SearchStrategy[Any]
    check: Callable[[Any, Path], Outcome]


class Crash(AssertionError):
    """A parser broke its contract (an unexpected exception, or an unstorable result)."""


# ------------------------------------------------------------------------------ invariants
def storable(value: Any, where: str = "result") -> None:
    """Every string in ``value`` (dataclasses, containers) is encodable as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Crash(f"{where} holds a string that is not UTF-8: {value!r}") from exc
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            storable(getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, dict):
        for k, v in value.items():
            storable(k, where)
            storable(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            storable(item, where)


def _records(result: ParseResult) -> Outcome:
    storable(result)
    for issue in result.issues:
        if not issue.message or issue.severity not in ("error", "warning"):
            raise Crash(f"an issue without a reason: {issue}")
    return "bad" if any(i.severity == "error" for i in result.issues) else "parsed"


# ------------------------------------------------------------------------------ generators
def _edit(seed: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    data = bytearray(seed)
    for where, how, chunk in edits:
        at = where % (len(data) + 1)
        if how == 0:
            data[at:at] = chunk  # insert
        elif how == 1:
            del data[at:at + len(chunk) + 1]  # delete a span
        elif how == 2:
            data[at:at + len(chunk)] = chunk  # overwrite
        else:
            del data[at:]  # truncate
    return bytes(data)


def mutated(*seeds: bytes) -> st.SearchStrategy[bytes]:
    """Valid seeds, edited: bytes inserted, deleted, overwritten, the tail cut off."""
    edits = st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 3),
                               st.binary(min_size=1, max_size=12)), max_size=8)
    return st.builds(_edit, st.sampled_from(seeds), edits)


def _nested(opening: bytes, closing: bytes, *, most: int = 50_000) -> st.SearchStrategy[bytes]:
    """Up to ``most`` levels (Python's own limit is ~1,000), half of them closed."""
    return st.integers(1, most).map(lambda n: opening * n + closing * (n // 2))


def hostile_bytes(*seeds: bytes,
                  nest: tuple[bytes, bytes] = (b"[", b"]")) -> st.SearchStrategy[bytes]:
    """Mutated seeds, random bytes, random text in several encodings, deep nesting."""
    text = st.text(max_size=200)
    return st.one_of(
        mutated(*seeds), mutated(*seeds), st.binary(max_size=400),
        text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        text.map(lambda t: t.encode("utf-16")),
        st.sampled_from(seeds).map(lambda s: s.decode("utf-8").encode("latin-1", "replace")),
        st.sampled_from(seeds).map(lambda s: s.decode("utf-8").encode("utf-16")),
        _nested(*nest))


# ------------------------------------------------------------------------------ source files
SOURCES: dict[str, bytes] = {
    "py": b'"""Doc."""\nimport os\nfrom . import x as y\n\n\nclass A(B, metaclass=M):\n'
          b'    def f(self, a: int = 1) -> str:\n        return os.path.join(self.g(a), "x")\n'
          b'\n\n@dec\ndef g(*a, **k):\n    x = A()\n    x.f()\n    lambda: g(1)\n',
    "js": b"import {a as b} from './m.js';\nexport class C extends D {\n  m(x) { return b(x)"
          b"; }\n}\nconst f = (y) => new C().m(y);\nfunction g() { f(1); }\n",
    "ts": b"import type { T } from './t';\ninterface I { a: number }\nexport class K implements"
          b" I { a = 1; m<U>(u: U): T { return g(u) as T; } }\nenum E { A, B }\n",
    "tsx": b"import React from 'react';\nexport function App(p: {n: string}) { return <div "
           b"onClick={() => go(p.n)}>{p.n}</div>; }\n",
    "go": b"package main\n\nimport (\n\t\"fmt\"\n\tx \"os\"\n)\n\ntype S struct{ A int }\n\n"
          b"func (s *S) M() int { return fmt.Println(x.Args) }\n\nfunc main() { s := S{}; "
          b"s.M() }\n",
    "java": b"package p;\nimport java.util.List;\npublic class A extends B implements C {\n"
            b"  private int x;\n  public A(int x) { this.x = x; }\n  void m() { List.of(1)"
            b".size(); new A(2).m(); }\n}\n",
    "rs": b"use std::fmt;\nmod m { pub fn f() -> u8 { 1 } }\npub struct S { a: i32 }\nimpl fmt"
          b"::Display for S {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { "
          b"write!(f, \"{}\", m::f()) }\n}\ntrait T { fn t(&self); }\n",
}
_EXT_FOR = {"py": ".py", "js": ".js", "ts": ".ts", "tsx": ".tsx", "go": ".go", "java": ".java",
            "rs": ".rs"}
source_inputs = st.tuples(
    st.sampled_from(sorted(_EXT_FOR)),
    st.one_of(*(mutated(s) for s in SOURCES.values()), st.binary(max_size=400),
              st.sampled_from(list(SOURCES.values())).map(lambda s: s.decode().encode("utf-16")),
              _nested(b"{", b"}", most=20_000), _nested(b"f(", b")", most=20_000)))


def check_source(value: tuple[str, bytes], tmp: Path) -> Outcome:
    key, data = value
    path = tmp / f"m{_EXT_FOR[key]}"
    path.write_bytes(data)
    language = EXTENSIONS[_EXT_FOR[key]]
    result = parse_file(ParseTask(str(path), path.name, language))
    if result.status == ParseStatus.ERROR:
        raise Crash(f"{language}: {result.error}")
    storable(result)
    return "parsed" if result.status == ParseStatus.OK else "bad"


# ------------------------------------------------------------------------------ file names
_NAME_BYTES = st.binary(min_size=1, max_size=24).map(
    lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")).filter(
    lambda b: b not in (b".", b".."))
name_inputs = st.lists(st.tuples(_NAME_BYTES, st.sampled_from(
    [b".py", b".js", b".go", b".md", b".bib", b"", b"/", b"/sub.py"])), min_size=1,
    max_size=6)


def check_names(names: list[tuple[bytes, bytes]], tmp: Path) -> Outcome:
    root = tmp / "tree"
    root.mkdir()
    base = os.fsencode(root)
    for stem, tail in names:
        target = base + b"/" + stem + tail
        try:
            if tail.startswith(b"/"):
                os.makedirs(base + b"/" + stem, exist_ok=True)
                if tail != b"/":
                    Path(os.fsdecode(target)).write_bytes(b"x = 1\n")
            else:
                Path(os.fsdecode(target)).write_bytes(b"x = 1\n")
        except (IsADirectoryError, FileExistsError, NotADirectoryError):
            continue  # a name generated twice as a file and a directory
    found, skipped = walk(root, max_file_size=1 << 20)
    storable((found, skipped))
    return "bad" if skipped else "parsed"


# ------------------------------------------------------------------------------ git data
_PERSON = st.binary(max_size=30).map(lambda b: b.replace(b"\n", b" ").replace(b"<", b"(")
                                     .replace(b">", b")"))
git_inputs = st.lists(st.tuples(
    st.one_of(st.binary(max_size=200), st.text(max_size=100).map(
        lambda t: t.encode("utf-8", "surrogatepass"))),  # message
    _PERSON, _PERSON,  # author name, email
    st.one_of(st.none(), st.sampled_from(["ISO-8859-1", "UTF-16", "nonsense-enc", "utf-8"])),
    st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_")),
    st.integers(-(1 << 33), 1 << 34),  # commit time, also far past and far future
), min_size=1, max_size=4)
#: how HEAD and the other refs look: git's own states, and damaged ones
_HEADS = ("main", "detached", "unborn", "garbage-head", "garbage-branch", "packed-garbage")
git_inputs = st.tuples(git_inputs, st.sampled_from(_HEADS), st.lists(
    st.binary(min_size=1, max_size=16).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_"))
    .filter(lambda b: b not in (b".", b"..")), max_size=3))


def check_git(value: tuple[list[tuple[bytes, bytes, bytes, str | None, bytes, int]], str,
                         list[bytes]], tmp: Path) -> Outcome:
    commits, head, tags = value
    root = tmp / "repo"
    repo = pygit2.init_repository(str(root), initial_head="main")
    parent: str | None = None
    for n, (message, name, email, encoding, fname, when) in enumerate(commits):
        blob = repo.create_blob(b"v = %d\n" % n)
        # a raw tree object: git keeps names as bytes (pygit2's TreeBuilder wants UTF-8)
        tree = repo.odb.write(pygit2.enums.ObjectType.TREE,
                              b"100644 " + fname + b".py\0" + blob.raw)
        who = name + b" <" + email + b"> " + str(when).encode() + b" +0000"
        raw = b"tree " + str(tree).encode() + b"\n"
        if parent:
            raw += b"parent " + parent.encode() + b"\n"
        raw += b"author " + who + b"\ncommitter " + who + b"\n"
        if encoding:
            raw += b"encoding " + encoding.encode() + b"\n"
        raw += b"\n" + message
        parent = str(repo.odb.write(pygit2.enums.ObjectType.COMMIT, raw))
    repo.references.create("refs/heads/main", parent, force=True)
    _refs(Path(repo.path), parent, head, tags)
    try:
        log = read_history(root)
    except (VgdbError, pygit2.GitError, KeyError):  # history "skipped" or "failed", reported
        return "bad"
    storable(log)
    return "bad" if log.notes else "parsed"


def _refs(git_dir: Path, sha: str, head: str, tags: list[bytes]) -> None:
    """Tags with any bytes in their names, and HEAD in one of git's states or damaged."""
    tag_dir = os.fsencode(git_dir / "refs" / "tags")
    for name in tags:
        with open(tag_dir + b"/" + name, "wb") as handle:
            handle.write(sha.encode() + b"\n")
    writes = {"detached": ("HEAD", sha + "\n"), "unborn": ("HEAD", "ref: refs/heads/none\n"),
              "garbage-head": ("HEAD", "ref: \x00\xff\n"),
              "garbage-branch": ("refs/heads/main", "not a sha\n"),
              "packed-garbage": ("packed-refs", "# pack-refs with: peeled\nzz refs/x\n")}
    if head in writes:
        name, text = writes[head]
        (git_dir / name).write_bytes(text.encode("utf-8", "surrogateescape"))


# ------------------------------------------------------------------------------ bibliographies
BIBTEX = (b"@article{k1,\n  title = {A {GPU} Approach to \\'Etude},\n  author = {M\\\"uller, J."
          b" and Doe, Jane and others},\n  year = {2019},\n  doi = {10.1000/xyz},\n  journal = "
          b"{J},\n}\n@misc{rfc9110, title={HTTP Semantics}, series={Request for Comments}, "
          b"number={9110}, year=2022, obsoletes={RFC 7231}}\n@book{b, title=\"T\", year={n.d."
          b"}, eprint={2101.00001}, archiveprefix={arXiv}}\n@string{j = \"Journal\"}\n")
CFF = (b"cff-version: 1.2.0\nmessage: cite\ntitle: Tool\ndoi: 10.5281/zenodo.1\nauthors:\n  - "
       b"family-names: Doe\n    given-names: J\n    orcid: https://orcid.org/0000-0000-0000-"
       b"0000\npreferred-citation:\n  type: article\n  title: Paper\n  year: 2020\n  doi: 10."
       b"1/a\n  authors:\n    - name: X\nreferences:\n  - type: software\n  title: Dep\n  "
       b"identifiers:\n    - type: doi\n      value: 10.1/b\n")
CODEMETA = json.dumps({
    "@context": "https://w3id.org/codemeta/3.0", "@type": "SoftwareSourceCode", "name": "x",
    "identifier": "https://doi.org/10.5281/zenodo.2", "author": [{"givenName": "J",
                                                                 "familyName": "Doe"}],
    "referencePublication": {"@type": "ScholarlyArticle", "name": "P", "identifier":
                             "10.1/c", "datePublished": "2021-01-01"},
    "citation": [{"@id": "https://doi.org/10.1/d", "name": "Q"}, "arXiv:2101.00002"],
}).encode()
OPENALEX = json.dumps({
    "id": "https://openalex.org/W1", "doi": "https://doi.org/10.1/e", "display_name": "W",
    "publication_year": 2020, "ids": {"arxiv": "2101.00003"}, "authorships": [
        {"author": {"display_name": "A", "orcid": None}, "institutions": [{"display_name":
                                                                           "U"}]}],
    "primary_location": {"source": {"display_name": "V"}}, "referenced_works":
        ["https://openalex.org/W2", "https://doi.org/10.1/f"],
    "topics": [{"display_name": "T", "score": 0.9}],
    "abstract_inverted_index": {"Hello": [0], "world": [1, 3], "again": [2]},
    "obsoletes": ["RFC 2616"]}).encode()
S2 = json.dumps({
    "paperId": "abc", "externalIds": {"DOI": "10.1/g", "ArXiv": "2101.00004"}, "title": "S",
    "year": 2021, "venue": "V", "authors": [{"name": "B", "authorId": "1"}],
    "references": [{"externalIds": {"DOI": "10.1/h"}, "title": "R"}, {"paperId": None}],
    "retracts": ["doi:10.1/i"]}).encode()
_PAPERS = Path(__file__).resolve().parents[2] / "datasets/academic/papers.jsonl"
PAPERS_JSONL = b"\n".join(_PAPERS.read_bytes().splitlines()[:3]) + b"\n"

_JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=20), st.sampled_from(["10.1/x", "arXiv:2101.1", "RFC 9110",
                                                     "https://openalex.org/W9"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20)


def _json_with_keys(seed: bytes) -> st.SearchStrategy[bytes]:
    """The seed's own keys with values of any JSON type: the typed paths of the parser."""
    base = json.loads(seed)
    keys = sorted(base)
    return st.dictionaries(st.sampled_from(keys), _JSON_VALUES, max_size=len(keys)).map(
        lambda d: json.dumps({**base, **d}).encode())


def _json_inputs(*seeds: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(hostile_bytes(*seeds), *(_json_with_keys(s) for s in seeds))


bibtex_inputs = hostile_bytes(BIBTEX, nest=(b"{", b"}"))
cff_inputs = hostile_bytes(CFF, nest=(b"- ", b""))
codemeta_inputs = _json_inputs(CODEMETA)
scholar_inputs = st.tuples(st.sampled_from(["works.json", "works.jsonl"]),
                           _json_inputs(OPENALEX, S2))
papers_inputs = st.one_of(hostile_bytes(PAPERS_JSONL), st.lists(
    _json_inputs(S2, OPENALEX), max_size=4).map(lambda rs: b"\n".join(rs)))
#: text as the papers step reads it: decoded with replacement, so never a lone surrogate
text_inputs = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["doi:10.1000/182", "https://doi.org/10.1/x)", "arXiv:2101.00001v2",
                              "RFC 9110", "[1] A. Author, \"Title\", 2020.", "References\n",
                              "https://example.org/a?b", "\n", " ", "(", "\u00e9"]),
             max_size=40).map("".join))


def check_bibtex(data: bytes, tmp: Path) -> Outcome:
    return _records(parse_bibtex(data, path="refs.bib"))


def check_cff(data: bytes, tmp: Path) -> Outcome:
    return _records(parse_cff(data, path="CITATION.cff"))


def check_codemeta(data: bytes, tmp: Path) -> Outcome:
    return _records(parse_codemeta(data, path="codemeta.json"))


def check_scholar(value: tuple[str, bytes], tmp: Path) -> Outcome:
    name, data = value
    return _records(parse_json_records(data, path=name))


def check_papers(data: bytes, tmp: Path) -> Outcome:
    return _records(parse_bibliography(data, path="papers.jsonl"))


def check_text(text: str, tmp: Path) -> Outcome:
    found = find_references(text, path="README.md")
    storable(found)
    return "parsed"


# ------------------------------------------------------------------------------ sessions
SESSION = [json.dumps(line).encode() for line in (
    {"v": 1, "type": "session_start", "ts": "2026-11-02T09:00:00Z", "session": "s",
     "agent": "a", "user": {"name": "U", "email": "u@x"}},
    {"type": "decision", "ts": "2026-11-02T09:01:00+01:00", "session": "s", "title": "T",
     "scope": ["a/**"], "files": "a.py", "papers": [{"doi": "10.1/x"}], "supersedes": "D-1"},
    {"type": "failure", "ts": "2026-11-02T09:02:00", "session": "s", "error": "E\nF"},
    {"type": "outcome", "ts": "2026-11-02T09:03:00Z", "session": "s", "resolution": "r",
     "outcome": "worked"},
    {"type": "file_modified", "ts": "2026-11-02T09:04:00Z", "session": "s",
     "paths": ["a.py"]},
    {"type": "session_end", "ts": "2026-11-02T09:05:00Z", "session": "s", "outcome": "done"})]
session_inputs = st.lists(st.one_of(
    hostile_bytes(*SESSION, nest=(b'{"a":', b"}")),
    *(_json_with_keys(s) for s in SESSION)), min_size=1, max_size=6)


def check_session(lines: list[bytes], tmp: Path) -> Outcome:
    data = b"\n".join(lines)
    parsed = parse_lines(data.splitlines(), file="s.jsonl")
    storable(parsed)
    for issue in parsed.issues:
        if not issue.message or issue.line < 1:
            raise Crash(f"an issue without a reason or a line: {issue}")
    return "bad" if any(i.severity == "error" for i in parsed.issues) else "parsed"


# ------------------------------------------------------------------------------ coverage
def _coverage_seed() -> bytes:
    from coverage import CoverageData

    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"parsers-fuzz-seed-{os.getpid()}.data"
    data = CoverageData(basename=str(path))
    data.set_context("tests/test_a.py::test_x|run")
    data.add_lines({"/src/pkg/mod.py": [1, 2, 5], "/src/pkg/other.py": [3]})
    data.set_context("tests/test_a.py::TestC::test_y[1]|run")
    data.add_lines({"/src/pkg/mod.py": [7]})
    data.write()
    raw = path.read_bytes()
    path.unlink()
    return raw


_COVERAGE: list[bytes] = []


def _flip(flips: list[tuple[int, int]]) -> bytes:
    if not _COVERAGE:
        _COVERAGE.append(_coverage_seed())
    data = bytearray(_COVERAGE[0])
    for where, bit in flips:
        data[where % len(data)] ^= 1 << bit
    return bytes(data)


coverage_inputs = st.one_of(
    st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 7)), min_size=1,
             max_size=24).map(_flip),
    st.integers(0, 60_000).map(lambda n: _flip([])[:n]),
    st.binary(max_size=200).map(lambda b: b"SQLite format 3\x00" + b),
    st.binary(max_size=400))


def check_coverage(data: bytes, tmp: Path) -> Outcome:
    path = tmp / "fuzz.coverage"
    path.write_bytes(data)
    try:
        recording = read_coverage(path)
    except VgdbError:
        return "bad"
    storable(recording)
    return "parsed"


# ------------------------------------------------------------------------------ manifests
MANIFEST_TOML = (b'cache_dir = "cache"\n[defaults]\nexclude = ["tests/"]\nhistory = {max_commits'
                 b' = 10, since = "2024-01-01"}\n[[repositories]]\nname = "a"\npath = "src"\n'
                 b'[[repositories]]\ngit = "https://example.org/x.git"\nref = "v1"\n')
MANIFEST_YAML = (b"defaults:\n  exclude: [tests/]\nrepositories:\n  - name: a\n    path: src\n"
                 b"  - git: https://example.org/x.git\n    ref: v1\n    history: false\n")
manifest_inputs = st.one_of(
    st.tuples(st.just(".toml"), hostile_bytes(MANIFEST_TOML)),
    st.tuples(st.just(".yaml"), hostile_bytes(MANIFEST_YAML, nest=(b"[", b"]"))),
    st.tuples(st.sampled_from([".yml", ".txt"]), st.binary(max_size=100)))


def check_manifest(value: tuple[str, bytes], tmp: Path) -> Outcome:
    suffix, data = value
    path = tmp / f"batch{suffix}"
    path.write_bytes(data)
    try:
        manifest = load_manifest(path)
    except VgdbError:
        return "bad"
    storable(manifest)
    return "parsed"


PARSERS: dict[str, Parser] = {p.name: p for p in (
    Parser("source", source_inputs, check_source),
    Parser("names", name_inputs, check_names),
    Parser("git", git_inputs, check_git),
    Parser("bibtex", bibtex_inputs, check_bibtex),
    Parser("cff", cff_inputs, check_cff),
    Parser("codemeta", codemeta_inputs, check_codemeta),
    Parser("openalex_s2", scholar_inputs, check_scholar),
    Parser("papers_jsonl", papers_inputs, check_papers),
    Parser("text_references", text_inputs, check_text),
    Parser("session", session_inputs, check_session),
    Parser("coverage", coverage_inputs, check_coverage),
    Parser("manifest", manifest_inputs, check_manifest),
)}


# ------------------------------------------------------------------------------ the real CLI
#: exit codes each command documents for bad input (api/cli.py; docs/ingest.md "Bad input")
CLI_EXITS: dict[str, frozenset[int]] = {
    "ingest": frozenset({0}), "ingest-papers": frozenset({0, 2}),
    "ingest-session": frozenset({0, 2}), "ingest-coverage": frozenset({0, 2}),
    "ingest-batch": frozenset({0, 1, 2}),
}


def _tree_case(value: tuple[list[tuple[bytes, bytes]], tuple[str, bytes], list],
               tmp: Path) -> list[list[str]]:
    """A git repository with hostile names, a hostile source file and hostile commits."""
    names, (key, source), history = value
    check_git(history, tmp)  # the history, as raw objects and refs
    root = tmp / "repo"
    base = os.fsencode(root)
    for stem, tail in names:
        target = base + b"/" + stem + (tail if not tail.startswith(b"/") else b".py")
        try:
            Path(os.fsdecode(target)).write_bytes(b"x = 1\n")
        except OSError:
            continue
    (root / f"hostile{_EXT_FOR[key]}").write_bytes(source)
    (root / "refs.bib").write_bytes(BIBTEX[: len(source) % len(BIBTEX)])
    return [["ingest", str(root), "--db", str(tmp / "db"), "--no-communities", "--no-embed"]]


def _papers_case(value: tuple[bytes, bytes, bytes, tuple[str, bytes]],
                 tmp: Path) -> list[list[str]]:
    bib, cff, codemeta, (name, scholar) = value
    files = {"refs.bib": bib, "CITATION.cff": cff, "codemeta.json": codemeta, name: scholar}
    for rel, data in files.items():
        (tmp / rel).write_bytes(data)
    return [["ingest-papers", *(str(tmp / rel) for rel in files), "--db", str(tmp / "db")]]


def _session_case(lines: list[bytes], tmp: Path) -> list[list[str]]:
    (tmp / "s.jsonl").write_bytes(b"\n".join(lines))
    return [["ingest-session", str(tmp / "s.jsonl"), "--db", str(tmp / "db")]]


def _coverage_case(data: bytes, tmp: Path) -> list[list[str]]:
    root = tmp / "proj"
    root.mkdir()
    (root / "mod.py").write_text("def f():\n    return 1\n")
    (tmp / "fuzz.coverage").write_bytes(data)
    return [["ingest", str(root), "--db", str(tmp / "db"), "--no-history", "--no-papers",
             "--no-communities", "--no-embed"],
            ["ingest-coverage", str(tmp / "fuzz.coverage"), "--db", str(tmp / "db"),
             "--repo", "proj", "--root", str(root), "--commit", "0" * 40]]


def _batch_case(value: tuple[str, bytes], tmp: Path) -> list[list[str]]:
    suffix, data = value
    (tmp / f"batch{suffix}").write_bytes(data)
    (tmp / "src").mkdir()
    (tmp / "src" / "m.py").write_text("def f():\n    return 1\n")
    return [["ingest-batch", str(tmp / f"batch{suffix}"), "--db", str(tmp / "db"),
             "--workers", "1", "--no-communities"]]


CLI_CASES: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any, Path], list[list[str]]]]] = {
    "ingest": (st.tuples(name_inputs, source_inputs, git_inputs), _tree_case),
    "ingest-papers": (st.tuples(bibtex_inputs, cff_inputs, codemeta_inputs, scholar_inputs),
                      _papers_case),
    "ingest-session": (session_inputs, _session_case),
    "ingest-coverage": (coverage_inputs, _coverage_case),
    "ingest-batch": (manifest_inputs, _batch_case),
}
