"""Session ingest benchmark: a large, realistic event log loaded into a graph of this repository.

One run:

1. ingests this repository's code (so file, symbol and commit references resolve), once;
2. generates a deterministic session log (default 100,000 events, seed 7): agent and
   sub-agent sessions reading and modifying the repository's real files, decisions and
   patterns that supersede earlier ones, failures with recurring signatures, resolutions and
   later outcomes, insights and notes (12% repeats: half the same text after normalization,
   half with one word of the content changed; both merge), intents, commits;
3. baseline: ``json.loads`` of every line of the same file (best of 3) — the floor any
   reader of the format pays;
4. ``ingest.sessions.load_sessions`` in-process into a copy of the code graph (parse,
   validate, rules, one transaction of COPYs, commit), and the same through the real
   ``vgdb ingest-session --json`` CLI in a subprocess (wall time includes process start).

    .venv/bin/python benchmarks/sessions.py [--events 100000] [--seed 7] [--keep]

Exit 0 when the checks pass (>= 20,000 events/s in-process; no bad line; rules exercised).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ingest import machine
from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.sessions import load_sessions
from ingest.sessions.plan import event_entry_id, session_key

ROOT = Path(__file__).resolve().parent.parent
REPO = "vectorgraphdb"
TARGET_EVENTS_PER_S = 20_000
WORDS = """graph node edge table commit rollback copy frame polars kuzu schema loader resolver
index vector hnsw search cypher query batch delta insert delete update symbol file
module import call inherit test coverage session agent decision failure pattern insight
intent supersede chain scope glob category signature outcome resolution merge duplicate
trigram hash blake2b walk parse tree sitter grammar python rust java go javascript
typescript worker pool process spawn lock manifest migration version checkpoint wal
buffer memory latency throughput benchmark ratio baseline incremental rebuild invariant
hypothesis property fixture subprocess cli json output rich progress error hint exit
code""".split()  # noqa: SIM905
CATEGORIES = [f"{a}-{b}" for a in ("storage", "ingest", "query", "api", "style", "perf",
                                   "testing", "docs") for b in ("core", "edge", "io", "api",
                                                                 "ops")]
FAILURE_CATS = ["kuzu", "parse", "resolve", "io", "lock", "test", "perf", "types"]
ERRORS = [
    "KeyError: '{v}' at {p}:{n}",
    "RuntimeError: Copy exception: duplicate primary key '{v}' at {p}:{n}",
    "AssertionError: expected '{v}' got '{w}' at line {n}",
    "TimeoutError: lock held by '{v}' (line {n})",
    "TypeError: unsupported operand for '{v}' at {p}:{n}",
    "ValueError: invalid literal '{v}' in {p}:{n}",
    "RuntimeError: Buffer manager exception: object at 0x{h} unpinned at line {n}",
    "FileNotFoundError: '{v}' from {p}:{n}",
]


_VOCAB: list[str] = []
_WEIGHTS: list[float] = []


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_VOCAB, cum_weights=_WEIGHTS, k=n))


def vocabulary(symbols: list[str], docs: list[str]) -> None:
    """Text drawn like the project's own prose: words of this repository's docstrings with
    their real frequencies (Zipf-like), plus its identifiers. (Uniform draws from ~100 words,
    the first version, made every text share its rarest trigrams: a worst case for dedup
    that no real log looks like.)"""
    counts: dict[str, int] = {}
    for text in [*docs, *symbols, " ".join(WORDS)]:
        for w in re.split(r"[^A-Za-z0-9_.]+", text):
            if len(w) > 1:
                counts[w] = counts.get(w, 0) + 1
    total = 0.0
    for w in sorted(counts):
        _VOCAB.append(w)
        total += counts[w]
        _WEIGHTS.append(total)


def code_graph(db: Path) -> tuple[list[str], list[str], list[str], list[str]]:
    """Ingest this repository into ``db``; its file paths, symbols, commit shas and
    docstrings."""
    with Store.open(db) as store:
        ingest_repository(store, ROOT, options=IngestOptions(name=REPO))
        paths = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL RETURN f.path "
                             "ORDER BY f.path")["f.path"].to_list()
        symbols = store.cypher(
            "MATCH (f:File)-[:CONTAINS]->(s:Symbol) WHERE s.valid_to IS NULL "
            "RETURN f.path + '#' + s.qualname AS ref ORDER BY ref LIMIT 3000")["ref"].to_list()
        shas = store.cypher("MATCH (c:Commit) RETURN c.sha ORDER BY c.sha")["c.sha"].to_list()
        docs = store.cypher("MATCH (s:Symbol) WHERE s.docstring <> '' RETURN s.docstring "
                            "ORDER BY s.id")["s.docstring"].to_list()
    return paths, symbols, shas, docs


def generate(path: Path, n_events: int, seed: int, paths: list[str], symbols: list[str],
             shas: list[str]) -> dict[str, int]:
    """Write a deterministic session log of ``n_events`` events; returns counts by type."""
    rng = random.Random(seed)
    near = random.Random(seed + 1)  # near-duplicate edits (leaves rng's sequence as it was)
    t = datetime(2026, 1, 5, 8, 0)
    heads: dict[tuple[str, str, str], str] = {}  # (kind, category, top dir) -> entry id
    texts: list[tuple[str, str, str]] = []  # insights/notes to repeat as near-duplicates
    counts: dict[str, int] = {}
    tops = sorted({p.split("/", 1)[0] for p in paths if "/" in p})
    lines: list[str] = []
    mains: list[str] = []

    def emit(kind: str, session: str, **fields: object) -> None:
        nonlocal t
        t += timedelta(seconds=rng.randint(1, 20))
        counts[kind] = counts.get(kind, 0) + 1
        lines.append(json.dumps({"v": 1, "type": kind, "ts": t.isoformat() + "Z",
                                 "session": session, **fields}))

    n_session = 0
    while len(lines) < n_events:
        n_session += 1
        sid = f"bench-{n_session:05d}"
        sub = mains and rng.random() < 0.2
        emit("session_start", sid, title=words(rng, 6), repo=REPO,
             agent="bench-runner" if sub else rng.choice(["claude-code", "codex", "aider"]),
             model=rng.choice(["claude-opus-4", "claude-sonnet-4", "gpt-5"]),
             **({"parent": mains[-1]} if sub else {"user": {"name": "Ada", "email":
                                                            "ada@vectorgraphdb.dev"}}))
        if not sub:
            mains.append(sid)
        failures: list[str] = []
        resolutions: list[str] = []
        for key in range(1, min(198, n_events - len(lines) - 1) + 1):
            r = rng.random()
            if r < 0.22:
                emit("file_read", sid, paths=rng.sample(paths, rng.randint(1, 4)))
            elif r < 0.30:
                emit("file_modified", sid, paths=rng.sample(paths, rng.randint(1, 2)))
            elif r < 0.39:
                kind = "decision" if r < 0.36 else "pattern"
                cat, top = rng.choice(CATEGORIES), rng.choice(tops)
                fields: dict[str, object] = {
                    "id": f"k{key}", "title": words(rng, 8), "content": words(rng, 30),
                    "category": cat, "scope": [f"{top}/**"],
                    "symbols": rng.sample(symbols, 1) if symbols else []}
                head = heads.get((kind, cat, top))
                if head:
                    fields.update(supersedes=head, reason=words(rng, 6),
                                  evidence=words(rng, 5))
                heads[(kind, cat, top)] = event_entry_id(session_key(sid), f"k{key}")
                emit(kind, sid, **fields)
            elif r < 0.49:
                p = rng.choice(paths)
                err = rng.choice(ERRORS).format(v=words(rng, 1), w=words(rng, 1), p=p,
                                                n=rng.randint(1, 900), h=f"{rng.getrandbits(32):x}")
                emit("failure", sid, id=f"k{key}", error=err, file=p,
                     category=rng.choice(FAILURE_CATS), approach=words(rng, 10),
                     context=words(rng, 12))
                failures.append(f"k{key}")
            elif r < 0.57 and failures:
                emit("resolution", sid, id=f"k{key}", resolves=rng.choice(failures),
                     title=words(rng, 7), content=words(rng, 20), approach=words(rng, 8))
                resolutions.append(f"k{key}")
            elif r < 0.63 and resolutions:
                emit("outcome", sid, resolution=rng.choice(resolutions),
                     outcome=rng.choice(["success", "success", "partial", "failed",
                                         "worsened"]))
            elif r < 0.85:
                kind = "insight" if r < 0.73 else "note"
                if texts and rng.random() < 0.12:
                    k, title, content = rng.choice(texts)
                    kind, title = k, title + "!"  # the same after normalization: merges
                    if near.random() < 0.5:  # one word of the content changed: a near-
                        words_ = content.split()  # duplicate (trigram similarity >= 0.9)
                        words_[near.randrange(len(words_))] = near.choice(_VOCAB)
                        content = " ".join(words_)
                else:
                    title, content = words(rng, 9), words(rng, 25)
                    texts.append((kind, title, content))
                emit(kind, sid, id=f"k{key}", title=title, content=content,
                     category="perf" if kind == "insight" else "",
                     files=rng.sample(paths, 1))
            elif r < 0.88:
                emit("intent", sid, id=f"k{key}", title=words(rng, 8),
                     scope=rng.sample(paths, 2),
                     expires_at=(t + timedelta(days=1)).isoformat() + "Z")
            elif shas and r < 0.90:
                emit("commit", sid, sha=rng.choice(shas)[:10])
            else:
                emit("note", sid, id=f"k{key}", title=words(rng, 9), content=words(rng, 25))
        emit("session_end", sid, outcome="success", summary=words(rng, 12))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return counts


def json_baseline(path: Path) -> float:
    """Best of 3: seconds to read the file and ``json.loads`` every line."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for raw in path.read_bytes().splitlines():
            json.loads(raw)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="Keep the temporary directory.")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vgdb-bench-sessions-"))
    try:
        info = machine()
        print(f"machine: {info['cpu']}, {info['nproc']} cores, "
              f"{info['ram_bytes'] / 2**30:.1f} GiB, Python {info['python']}, "
              f"kuzu {info['versions']['kuzu']}, polars {info['versions']['polars']}; "
              f"{info['date']}")
        start = time.perf_counter()
        paths, symbols, shas, docs = code_graph(work / "code")
        vocabulary(symbols, docs)
        print(f"code graph of this repository: {len(paths)} files, {len(symbols)} symbols "
              f"sampled, {len(shas)} commits, {len(_VOCAB)} distinct words in its docstrings "
              f"and names ({time.perf_counter() - start:.1f} s, not timed)")
        log = work / "sessions.jsonl"
        counts = generate(log, args.events, args.seed, paths, symbols, shas)
        n = sum(counts.values())
        size = log.stat().st_size
        print(f"log: {n} events, {size / 2**20:.1f} MiB; "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

        base = json_baseline(log)
        shutil.copytree(work / "code", work / "inproc")
        with Store.open(work / "inproc") as store:
            start = time.perf_counter()
            summary = load_sessions(store, [log])
            inproc = time.perf_counter() - start
        shutil.copytree(work / "code", work / "cli")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "api.cli", "ingest-session", str(log),
                               "--db", str(work / "cli"), "--json"], cwd=ROOT,
                              capture_output=True, text=True, check=False)
        cli = time.perf_counter() - start
        data = summary.to_dict()
        rows = [
            ("json.loads of every line (baseline, best of 3)", base, n / base),
            ("load_sessions in-process (parse + rules + COPY + commit)", inproc, n / inproc),
            ("vgdb ingest-session --json (CLI wall, process start included)", cli, n / cli),
        ]
        print(f"\n{'':62s} {'seconds':>8s} {'events/s':>10s}")
        for name, secs, rate in rows:
            print(f"{name:62s} {secs:8.2f} {rate:10,.0f}")
        print("\nphases in-process: " + ", ".join(f"{k} {v:.2f} s"
                                                  for k, v in summary.seconds.items()))
        print(f"ratio in-process / json baseline: {base / inproc:.3f}  "
              f"(CLI: {base / cli:.3f})")
        c = data["counts"]
        print("rules: " + ", ".join(f"{k} {v}" for k, v in c.items()))
        print("written: " + ", ".join(f"{k} {v}" for k, v in data["written"].items()))
        print(f"issues: {len(data['errors'])} errors, {len(data['warnings'])} warnings")
        similar = sum(r.merged and r.similarity < 1 for r in summary.recorded)
        print(f"merged: {c.get('merged', 0)}, of which {similar} by trigram similarity < 1")
        checks = [
            (f"in-process >= {TARGET_EVENTS_PER_S:,} events/s", n / inproc >= TARGET_EVENTS_PER_S),
            ("no bad line, no rejected event", not data["errors"]),
            ("dedup merged near-duplicates", c.get("merged", 0) > 0),
            ("some merged by trigram similarity < 1 (not only the same hash)",
             any(r.merged and r.similarity < 1 for r in summary.recorded)),
            ("supersession chains advanced", c.get("superseded", 0) > 0),
            ("CLI exit 0 and same counts", done.returncode == 0
             and json.loads(done.stdout)["counts"] == c),
        ]
        print()
        for name, ok in checks:
            print(f"  [{'ok' if ok else 'FAIL'}] {name}")
        if done.returncode:
            print(done.stderr[-2000:])
        return 0 if all(ok for _, ok in checks) else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
