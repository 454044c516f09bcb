"""The one definition of VectorGraphDB's node and rel tables, for all three domains.

Direction is part of each rel's meaning; every rel docstring says which way it points.
Bump :data:`SCHEMA_VERSION` whenever a table or property changes, and add a migration to
``graphdb.migrations`` (or leave none, and old databases are refused with a clear error).
"""

from __future__ import annotations

from schema.enums import Source
from schema.model import NodeTable, Prop, RelTable

__all__ = [
    "ABOUT", "AGENT", "AUTHOR", "AUTHORED", "BASED_ON", "BY", "CALLS", "CHANGED", "CITES",
    "CODE_REF", "COMMIT", "COMMUNITY", "CONTAINS", "CO_CHANGED", "DEPENDS_ON", "ENTRY",
    "EXECUTES", "EXTERNAL",
    "FILE", "HAS_TOPIC", "IMPORTS", "INHERITS", "IN_COMMUNITY", "IN_SESSION", "META", "NODE_TABLES",
    "PAPER", "PARENT", "PERSON", "REFERENCES", "REL_TABLES", "REPOSITORY", "RESOLVES",
    "SCHEMA_VERSION", "SESSION", "SUBCOMMUNITY_OF", "SUPERSEDES", "SYMBOL", "TESTS", "TOPIC",
    "TOUCHED", "WROTE", "current_code_files",
]

#: Version of this schema; stored in every database (table ``Meta``, key ``schema_version``).
SCHEMA_VERSION = 5

S, I, D, B, T, L = "STRING", "INT64", "DOUBLE", "BOOLEAN", "TIMESTAMP", "STRING[]"  # noqa: E741

# --------------------------------------------------------------------------------------- internal
META = NodeTable(
    "Meta", "internal", "Key/value facts about the database itself (schema version, ...).",
    (Prop("value", S),), internal=True,
)

# ------------------------------------------------------------------------------------------- code
REPOSITORY = NodeTable(
    "Repository", "code", "A source tree that was ingested. id: repo:<name>.",
    (
        Prop("name", S, "repository name, unique in the database"),
        Prop("root", S, "absolute path of the tree when it was last ingested"),
        Prop("head", S, "git HEAD commit at ingest time, if a git repository"),
        Prop("ingested_at", T, "when the last ingest finished"),
    ),
)
FILE = NodeTable(
    "File", "code", "A file of a repository. id: file:<repo>/<path>.",
    (
        Prop("repo", S, "repository name"),
        Prop("path", S, "path relative to the repository root, '/'-separated"),
        Prop("language", S, "language of the grammar used, or '' when not parsed"),
        Prop("module", S, "module key the file defines (Python dotted name, JS path, Go package)"),
        Prop("package", S, "package/namespace the file declares (Go, Java), else ''"),
        Prop("size", I, "size in bytes"),
        Prop("sha", S, "content hash (blake2b-128 hex)"),
        Prop("mtime_ns", I, "modification time seen at ingest, to skip re-hashing unchanged files"),
        Prop("loc", I, "number of lines"),
        Prop("parse_status", S, "ok | partial (syntax errors) | skipped | error"),
        Prop("parse_error", S, "why the file was flagged or skipped"),
        Prop("is_test", B, "the file holds tests"),
    ),
)


def current_code_files(alias: str = "f", repo: str = "$r") -> str:
    """Cypher condition: ``alias`` is a current File of repository ``repo`` ingested as code
    (files known only from git history, such as README.md or deleted paths, are not)."""
    return (f"{alias}.repo = {repo} AND {alias}.valid_to IS NULL "
            f"AND {alias}.source <> '{Source.GIT.value}'")


SYMBOL = NodeTable(
    "Symbol", "code",
    "A named definition in a file. id: sym:<repo>/<path>#<qualname>; the module itself has "
    "qualname '<module>'. A test is a Symbol with is_test.",
    (
        Prop("repo", S), Prop("file", S, "id of the defining File"),
        Prop("qualname", S, "dotted name inside the file, with ~N ordinal for repeats"),
        Prop("name", S, "short name"),
        Prop("kind", S, "module, class, interface, struct, enum, trait, function, method, "
                        "variable, constant"),
        Prop("language", S),
        Prop("signature", S, "declaration line(s) up to the body"),
        Prop("docstring", S),
        Prop("start_line", I, "1-based first line"), Prop("end_line", I, "1-based last line"),
        Prop("visibility", S, "public | private | protected | internal"),
        Prop("is_test", B),
    ),
)
EXTERNAL = NodeTable(
    "External", "code",
    "A module, package or symbol outside the ingested repositories (or unresolved). "
    "id: ext:<language>:<dotted name>.",
    (Prop("name", S, "dotted name"), Prop("language", S), Prop("package", S, "top-level package"),
     Prop("kind", S, "module | symbol | builtin")),
)
CODE_REF = NodeTable(
    "CodeRef", "code",
    "A file's unresolved references as written (imports, bases, bindings, call sites), packed "
    "one row per file. Kept so that edges from unchanged files into changed ones re-resolve "
    "without re-parsing; one row per file (not per reference) because incremental ingest needs "
    "them per file and 400K tiny rows cost more to load than all the symbols. id: ref:<file id>.",
    (
        Prop("file", S, "id of the File holding the references"),
        Prop("decls", S, "JSON list of [kind, scope, target, name, alias, level, line] for "
                         "kind import | inherit | assign, in source order"),
        Prop("calls", S, "JSON list of [scope, callee, line] call sites, in source order"),
        Prop("count", I, "number of references"),
    ),
    internal=True,
)

# ---------------------------------------------------------------------------------------- history
COMMIT = NodeTable(
    "Commit", "history", "A git commit. id: commit:<sha>.",
    (Prop("sha", S), Prop("repo", S), Prop("summary", S, "first line of the message"),
     Prop("message", S, "whole message, decoded with its declared encoding (bad bytes replaced)"),
     Prop("authored_at", T), Prop("committed_at", T), Prop("is_merge", B),
     Prop("files_changed", I, "files in the diff against the first parent (0 for merges)"),
     Prop("additions", I), Prop("deletions", I)),
)
PERSON = NodeTable(
    "Person", "history", "An author or committer, merged by normalized email. id: person:<email>.",
    (Prop("name", S), Prop("email", S), Prop("aliases", L, "other names seen for this email")),
)
SESSION = NodeTable(
    "Session", "history", "A working session of an agent or person. id: session:<id>.",
    (Prop("title", S), Prop("started_at", T), Prop("ended_at", T), Prop("agent", S),
     Prop("model", S), Prop("parent", S, "id of the parent session for sub-agents"),
     Prop("repo", S, "repository the session worked on, if one"),
     Prop("summary", S, "what the session did, from its end event"),
     Prop("outcome", S, "success | partial | failed | abandoned, from its end event"),
     Prop("file", S, "session log it was loaded from, '' when recorded through the API"),
     Prop("format_version", I, "version of the event format it was written in")),
)
AGENT = NodeTable(
    "Agent", "history", "An AI agent (by name and model). id: agent:<name>.",
    (Prop("name", S), Prop("model", S), Prop("kind", S)),
)
ENTRY = NodeTable(
    "Entry", "history",
    "Something decided, learned or attempted: decision, failure, resolution, pattern, insight, "
    "intent, note. id: entry:<uuid>; display_id like DEC-12.",
    (
        Prop("display_id", S), Prop("kind", S), Prop("title", S), Prop("content", S),
        Prop("scope", L, "path globs or API names the entry is about"),
        Prop("status", S, "active | superseded | merged | expired"),
        Prop("category", S), Prop("outcome", S, "pending | success | partial | failed | worsened"),
        Prop("signature", S, "normalized failure signature (failures)"),
        Prop("error", S, "error text as reported (failures)"),
        Prop("approach", S, "what was being tried (failures, resolutions)"),
        Prop("context", S, "surrounding situation (failures)"),
        Prop("repo", S, "repository the entry is about, if one"),
        Prop("hash", S, "hash of the normalized kind/category/title/content, for dedup"),
        Prop("expires_at", T, "when an intent lapses"),
        Prop("unresolved", L, "references that named nothing in the graph when recorded"),
    ),
)

# --------------------------------------------------------------------------------------- academic
PAPER = NodeTable(
    "Paper", "academic",
    "A paper, RFC, doc, book, standard or blog post. id: paper:doi:<doi> | paper:arxiv:<id> | "
    "paper:title:<hash> (DOI > arXiv id > normalized title + year; an RFC is keyed by its DOI "
    "10.17487/rfc<n>). One node per identity across every source (docs/academic.md).",
    (Prop("kind", S, "paper | rfc | doc | book | standard | blog | software"),
     Prop("doi", S, "normalized DOI (lower case, no URL or doi: prefix), or ''"),
     Prop("arxiv", S, "arXiv id without version (2101.00001, hep-th/9901001), or ''"),
     Prop("title", S), Prop("year", I),
     Prop("venue", S), Prop("abstract", S), Prop("url", S),
     Prop("resolved", B, "false for a stub known only from a reference"),
     Prop("status", S, "active | retracted | obsoleted | merged (a stub merged into the node "
                       "that identified it)"),
     Prop("title_key", S, "hash of the normalized title + year: how title-only references "
                          "find the paper whatever its id"),
     Prop("authority", I, "rank of the most authoritative source merged in (higher wins; "
                          "ingest.academic.records.AUTHORITY)"),
     Prop("ext_ids", L, "ids in other catalogues: openalex:W.., s2:<paperId>"),
     Prop("sources", L, "every source the paper was met in: <format>:<file>:<line or record>"),
     Prop("conflicts", S, "JSON {field: [[value, source], ...]} of values that lost to a more "
                          "authoritative source")),
)
AUTHOR = NodeTable(
    "Author", "academic", "An author of papers. id: author:<orcid or normalized name>.",
    (Prop("name", S), Prop("orcid", S), Prop("affiliation", S, "as the source gave it")),
)
TOPIC = NodeTable("Topic", "academic", "A research topic. id: topic:<slug>.", (Prop("name", S),))

# ---------------------------------------------------------------------------------------- derived
COMMUNITY = NodeTable(
    "Community", "derived",
    "A module boundary found by Leiden in one repository's file or symbol graph. "
    "id: community:<repo>/<scope>/<level>/<n>, n stable across re-runs.",
    (
        Prop("repo", S, "repository whose graph was partitioned"),
        Prop("scope", S, "file | symbol: the graph the community partitions"),
        Prop("level", I, "0 = top level; level k+1 splits the communities of level k"),
        Prop("number", I, "stable number within (repo, scope, level), kept by overlap"),
        Prop("objective", S, "quality function: modularity | rb | cpm"),
        Prop("resolution", D),
        Prop("name", S, "readable name: common path prefix and dominant terms"),
        Prop("size", I, "member files or symbols"),
        Prop("quality", D, "modularity of this level's partition of the whole graph"),
        Prop("prefix", S, "longest path prefix shared by most members"),
        Prop("terms", L, "dominant identifier words, most distinctive first"),
        Prop("top", L, "dominant members (by weighted degree inside the community)"),
        Prop("internal", D, "weight of edges inside the community"),
        Prop("external", D, "weight of edges leaving it"),
    ),
)

NODE_TABLES: tuple[NodeTable, ...] = (
    META, REPOSITORY, FILE, SYMBOL, EXTERNAL, CODE_REF, COMMIT, PERSON, SESSION, AGENT, ENTRY,
    PAPER, AUTHOR, TOPIC, COMMUNITY,
)

# ------------------------------------------------------------------------------------------- rels
RESOLUTION = Prop("resolution", S, "how the target was found (see schema.enums.Resolution)")
LINE = Prop("line", I, "1-based line of the reference")

CONTAINS = RelTable(
    "CONTAINS", "Structural containment, parent -> child: repository -> file -> symbol -> symbol.",
    ((REPOSITORY, FILE), (FILE, SYMBOL), (SYMBOL, SYMBOL)),
)
IMPORTS = RelTable(
    "IMPORTS", "Importer -> imported: a file imports a file (module), a symbol or an External.",
    ((FILE, FILE), (FILE, SYMBOL), (FILE, EXTERNAL)),
    (LINE, Prop("name", S, "name as imported"), RESOLUTION),
)
CALLS = RelTable(
    "CALLS", "Caller -> callee, from the enclosing definition of the call site.",
    ((SYMBOL, SYMBOL), (SYMBOL, EXTERNAL)),
    (LINE, RESOLUTION, Prop("count", I, "call sites of this pair; line is the first")),
)
INHERITS = RelTable(
    "INHERITS", "Subclass -> base (extends or implements).",
    ((SYMBOL, SYMBOL), (SYMBOL, EXTERNAL)),
    (Prop("kind", S, "extends | implements"), RESOLUTION),
)
TESTS = RelTable(
    "TESTS", "Test -> symbol under test.", ((SYMBOL, SYMBOL),),
    (Prop("method", S, "calls | naming"),),
)
PARENT = RelTable("PARENT", "Commit -> its parent commit.", ((COMMIT, COMMIT),),
                  (Prop("ordinal", I, "0 for the first parent"),))
AUTHORED = RelTable("AUTHORED", "Person -> commit they authored or committed.",
                    ((PERSON, COMMIT),), (Prop("role", S, "author | committer"),))
CHANGED = RelTable(
    "CHANGED", "Commit -> file it changed.", ((COMMIT, FILE),),
    (Prop("kind", S, "added | modified | deleted | renamed"), Prop("additions", I),
     Prop("deletions", I), Prop("old_path", S), Prop("binary", B)),
)
TOUCHED = RelTable("TOUCHED", "Commit -> symbol whose span its diff touched.", ((COMMIT, SYMBOL),),
                   (Prop("kind", S, "added | modified | deleted | renamed"),
                    Prop("lines", I, "changed lines attributed to the symbol (innermost)")))
CO_CHANGED = RelTable("CO_CHANGED", "File <-> file changed in the same commits (stored once, a<b).",
                      ((FILE, FILE),), (Prop("weight", D), Prop("count", I)))
IN_SESSION = RelTable(
    "IN_SESSION", "Entry or commit -> the session it happened in; sub-session -> parent session.",
    ((ENTRY, SESSION), (COMMIT, SESSION), (SESSION, SESSION)),
    (Prop("merged", B, "the session recorded a duplicate of this existing entry"),),
)
BY = RelTable("BY", "Entry or session -> the agent or person who made it.",
              ((ENTRY, AGENT), (ENTRY, PERSON), (SESSION, AGENT), (SESSION, PERSON)))
ABOUT = RelTable(
    "ABOUT", "Entry or session -> the code or commit it is about, read or modified.",
    ((ENTRY, FILE), (ENTRY, SYMBOL), (ENTRY, COMMIT), (SESSION, FILE), (SESSION, SYMBOL),
     (SESSION, COMMIT)),
    (Prop("kind", S, "about | read | modified"),),
)
SUPERSEDES = RelTable(
    "SUPERSEDES", "Newer -> older fact it replaces (nothing is erased).",
    ((ENTRY, ENTRY), (SYMBOL, SYMBOL), (PAPER, PAPER)),
    (Prop("reason", S), Prop("evidence", S), Prop("at", T), Prop("by", S)),
)
CITES = RelTable("CITES", "Citing paper -> cited paper.", ((PAPER, PAPER),),
                 (Prop("evidence", S, "the source that listed the citation"),))
WROTE = RelTable("WROTE", "Author -> paper.", ((AUTHOR, PAPER),), (Prop("position", I),))
HAS_TOPIC = RelTable("HAS_TOPIC", "Paper -> topic.", ((PAPER, TOPIC),), (Prop("score", D),))
REFERENCES = RelTable(
    "REFERENCES", "Code, commit or entry -> the paper it cites, implements or documents.",
    ((SYMBOL, PAPER), (FILE, PAPER), (COMMIT, PAPER), (ENTRY, PAPER)),
    (Prop("kind", S, "cites | implements | documents"),
     Prop("location", S, "where it is cited: file:line, or the commit"),
     Prop("evidence", S, "the text that was matched (DOI, arXiv id, citation)")),
)
BASED_ON = RelTable("BASED_ON", "Decision -> paper it is based on.", ((ENTRY, PAPER),),
                    (Prop("location", S, "where the decision cites it"),
                     Prop("evidence", S, "the text that was matched")))
RESOLVES = RelTable("RESOLVES", "Resolution entry -> failure entry.", ((ENTRY, ENTRY),),
                    (Prop("outcome", S),))
EXECUTES = RelTable(
    "EXECUTES",
    "Test symbol -> symbol (or file) it executed, from coverage recorded with per-test "
    "contexts (source=coverage); from a module symbol for what importing that module ran "
    "(the pytest_vgdb plugin's import contexts). Lines outside every definition go to the "
    "file's module symbol, or to the File when it has none. A newer recording of the "
    "repository ends these edges (valid_to, expired_at) instead of erasing them.",
    ((SYMBOL, SYMBOL), (SYMBOL, FILE)),
    (Prop("repo", S, "repository the coverage was recorded in"),
     Prop("commit", S, "commit the coverage was recorded at"),
     Prop("lines", S, "executed lines of the target, as ranges: '3-5,9'"),
     Prop("count", I, "number of executed lines"),
     Prop("phases", S, "pytest phases that executed them: collect (a test module's import), "
          "import (another module's import, from the module symbol), setup, run, teardown"),
     Prop("cases", S, "the runs under the test that executed them, as a JSON list: "
          "parametrized cases (the pytest id inside [...]) and, from a class or module the "
          "graph holds for a test it lacks (inherited, or collected again from an import), "
          "the rest of that test's pytest id ('::test_b', '::TestA::test_b[x]'); empty when "
          "every recorded run did, or the test has none")),
)
IN_COMMUNITY = RelTable("IN_COMMUNITY", "File or symbol -> its community.",
                        ((FILE, COMMUNITY), (SYMBOL, COMMUNITY)))
SUBCOMMUNITY_OF = RelTable("SUBCOMMUNITY_OF", "Finer community -> the coarser one containing it.",
                           ((COMMUNITY, COMMUNITY),))
DEPENDS_ON = RelTable(
    "DEPENDS_ON", "Community -> community its members depend on (IMPORTS, CALLS, INHERITS "
    "between members, same level).", ((COMMUNITY, COMMUNITY),),
    (Prop("weight", D, "summed weight of the dependency edges"),
     Prop("edges", I, "member pairs with a dependency")),
)

REL_TABLES: tuple[RelTable, ...] = (
    CONTAINS, IMPORTS, CALLS, INHERITS, TESTS, PARENT, AUTHORED, CHANGED, TOUCHED, CO_CHANGED,
    IN_SESSION, BY, ABOUT, SUPERSEDES, CITES, WROTE, HAS_TOPIC, REFERENCES, BASED_ON, RESOLVES,
    EXECUTES, IN_COMMUNITY, SUBCOMMUNITY_OF, DEPENDS_ON,
)
