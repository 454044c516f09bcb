"""kill -9 at every commit and checkpoint of every write path; full disks (issue 21).

A fixed scenario of write steps, each a real ``vgdb`` command on a real git repository:

    ingest · ingest-session · ingest-papers · embed · ingest-coverage · update (edit, commit,
    ingest) · communities --detect · mutation (start a session and record a decision through
    ``vgdb serve --writable`` over HTTP)

First every step runs once, cleanly, and the database after it is kept (``clean[k]``) with its
content digest (graphdb.health.content_digest: every row of every table, timestamps and stat
caches left out). Then, per step, a trial copies ``clean[k-1]``, runs the step with
``VGDB_FAILPOINT=<point>#<n>`` (the process SIGKILLs itself the n-th time it reaches that
point: a commit about to run, a commit just done, a checkpoint about to run or done, and the
ingest's own phases), and checks:

- the process was killed (a step that finished first is "not reached" and not a trial);
- ``vgdb check`` passes on what the kill left, for the graph: it opens, its checksum and every
  row read back (indexes derived from it may lag until the next write, which rebuilds them);
- nothing committed is lost and nothing uncommitted shows: the state killed just after commit n
  equals the state killed just before commit n+1 (and the state killed before commit 1 equals
  ``clean[k-1]``);
- running the step again converges: ``vgdb check`` passes in full (indexes included) and the
  content digest equals ``clean[k]``'s.

Full disk (``--disk``): the scenario's first steps on a tmpfs of a given size (root only): each
run must end with exit code 5 and "no space left on device", or succeed; after the space is
freed (the tmpfs remounted larger) the database must pass ``vgdb check`` and a rerun must
converge.

    python benchmarks/fault_campaign.py               # the whole campaign (~10 min here)
    python benchmarks/fault_campaign.py --steps ingest,embed --max-n 3
    python benchmarks/fault_campaign.py --disk 1.5,2,2.5,3,3.5,4   # tmpfs sizes in MiB
    python benchmarks/fault_campaign.py --tree ../vgdb-0.1     # the "before" table
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphdb.faults import (  # noqa: E402
    FAILPOINTS,
    INDEX_FAILPOINTS,
    STORE_FAILPOINTS,
    VECTOR_FAILPOINTS,
)
from graphdb.health import check_database  # noqa: E402

IDENTITY = {"GIT_AUTHOR_NAME": "Fault Campaign", "GIT_AUTHOR_EMAIL": "faults@example.org",
            "GIT_COMMITTER_NAME": "Fault Campaign", "GIT_COMMITTER_EMAIL": "faults@example.org",
            "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}

PROJECT_V1 = {
    "pkg/__init__.py": "from pkg.core import add, mul\n",
    "pkg/core.py": '''
        """Arithmetic, after Knuth's TAOCP (doi:10.1145/361604.361612)."""
        from pkg.util import clamp


        def add(a, b):
            """Add two numbers, clamped."""
            return clamp(a + b)


        def mul(a, b):
            """Multiply by repeated addition."""
            total = 0
            for _ in range(b):
                total = add(total, a)
            return total
        ''',
    "pkg/util.py": '''
        def clamp(x, low=-1000, high=1000):
            """Keep x within [low, high]."""
            return max(low, min(high, x))
        ''',
    "tests/test_core.py": '''
        from pkg.core import add, mul


        def test_add():
            assert add(2, 3) == 5


        def test_mul():
            assert mul(3, 4) == 12
        ''',
    "README.md": "# pkg\n\nSee arXiv:1810.08473 for the community detection we compare with.\n",
}
PROJECT_V2 = {
    "pkg/core.py": '''
        """Arithmetic, after Knuth's TAOCP (doi:10.1145/361604.361612)."""
        from pkg.util import clamp


        def add(a, b):
            """Add two numbers, clamped to the range."""
            return clamp(a + b)


        def mul(a, b):
            """Multiply."""
            return clamp(a * b)


        def square(a):
            """The square of a."""
            return mul(a, a)
        ''',
    "pkg/extra.py": "from pkg.core import square\n\n\n"
                    "def fourth(a):\n    return square(square(a))\n",
}


# ---------------------------------------------------------------------------------- running
@dataclass
class Tree:
    """The vgdb being tested: this checkout, or another one with its own .venv (``--tree``:
    e.g. the release before the engine move, for the "before" table)."""

    root: Path = ROOT
    python: str = sys.executable

    @property
    def own(self) -> bool:
        return self.root == ROOT


TREE = Tree()


def vgdb(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a vgdb command. ``VGDB_KILL_AFTER`` (seconds) in ``env``: SIGKILL it then (a timed
    kill, for points a checkout has no failpoint for); its exit is -9 only if it was still
    running."""
    full = {**os.environ, "PYTHONPATH": str(TREE.root), "COLUMNS": "200", **(env or {})}
    after = full.pop("VGDB_KILL_AFTER", None)
    cmd = [TREE.python, "-m", "api.cli", *args]
    with subprocess.Popen(cmd, cwd=cwd or TREE.root, env=full, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        try:
            out, err = proc.communicate(timeout=float(after) if after else timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env={**os.environ, **IDENTITY}, check=True,
                   capture_output=True)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@dataclass
class Work:
    """The campaign's directory: the project's trees (one per revision, moved into place as
    ``proj`` when a step needs it, so paths and mtimes are the same in every run)."""

    root: Path
    trees: dict[str, Path] = field(default_factory=dict)
    coverage: Path | None = None

    @property
    def proj(self) -> Path:
        return self.root / "proj"

    def use(self, rev: str) -> None:
        if self.proj.exists():
            current = (self.proj / ".rev").read_text()
            os.replace(self.proj, self.trees[current])
        os.replace(self.trees[rev], self.proj)

    def park(self) -> None:
        if self.proj.exists():
            os.replace(self.proj, self.trees[(self.proj / ".rev").read_text()])


def make_work(root: Path) -> Work:
    """Two revisions of a real git repository, and a coverage recording of v1's tests."""
    work = Work(root)
    v1 = root / "tree-v1"
    write(v1, PROJECT_V1)
    (v1 / ".gitignore").write_text(".rev\n", encoding="utf-8")
    git(v1, "init", "-q", "-b", "main")
    git(v1, "add", "-A")
    git(v1, "commit", "-q", "-m", "v1: core, util, tests")
    v2 = root / "tree-v2"
    shutil.copytree(v1, v2, symlinks=True)
    write(v2, PROJECT_V2)
    git(v2, "add", "-A")
    git(v2, "commit", "-q", "-m", "v2: square, extra")
    for rev, tree in (("v1", v1), ("v2", v2)):
        (tree / ".rev").write_text(rev, encoding="utf-8")
        work.trees[rev] = tree
    work.use("v1")
    data = root / "coverage.data"
    env = {**os.environ, "COVERAGE_FILE": str(data)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "--cov=pkg", "--cov-context=test"],
                          cwd=work.proj, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"recording coverage failed: {done.stdout}{done.stderr}")
    work.coverage = data
    work.park()
    return work


# ------------------------------------------------------------------------------------ steps
@dataclass(frozen=True)
class Step:
    name: str
    rev: str
    run: Callable[[Work, Path, dict[str, str]], subprocess.CompletedProcess[str]]


def _cli(*args: str) -> Callable[[Work, Path, dict[str, str]], subprocess.CompletedProcess[str]]:
    def run(work: Work, db: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        real = [str(work.coverage) if a == "{coverage}" else str(work.proj) if a == "{proj}"
                else a for a in args]
        return vgdb(*real, "--db", str(db), env=env)
    return run


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# A key and a time make the write idempotent, as an agent retrying after a crash would send it
_MUTATION = """mutation {
  startSession(session: "fault-session", title: "fault campaign") { __typename }
  recordDecision(session: "fault-session", key: "clamp", title: "Keep clamp in util",
                 content: "clamp stays a helper of pkg.util", scope: ["pkg/util.py"],
                 at: "2026-11-26T09:01:00Z") {
    __typename
  }
}"""


def _mutation(work: Work, db: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Create a write token, start ``vgdb serve --writable``, send one mutation over HTTP."""
    made = vgdb("token", "create", "campaign", "--scope", "write", "--db", str(db), env=env)
    if made.returncode != 0:
        return made
    token = made.stdout.strip().split()[-1]
    port = _free_port()
    full = {**os.environ, "PYTHONPATH": str(TREE.root), **env}
    serve = [TREE.python, "-m", "api.cli", "serve", "--db", str(db), "--writable", "--port",
             str(port)]
    with subprocess.Popen(serve, env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as server:
        try:
            out = _send(server, port, token)
            if server.poll() is None:
                server.send_signal(signal.SIGINT)
                server.wait(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        err = server.stderr.read() if server.stderr else ""
    code = server.returncode
    if code == 0 and '"errors"' in out:
        code = 1
    return subprocess.CompletedProcess(server.args, code, out, err)


def _send(server: subprocess.Popen[str], port: int, token: str) -> str:
    """Wait for the server, send the mutation; the answer's text (or why there is none)."""
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    if server.poll() is not None:
        return ""
    try:
        return httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": _MUTATION},
                          timeout=60, headers={"Authorization": f"Bearer {token}"}).text
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"


STEPS = (
    Step("ingest", "v1", _cli("ingest", "{proj}", "--name", "proj")),
    Step("ingest-session", "v1", _cli("ingest-session",
                                      str(ROOT / "datasets/sessions/example-session.jsonl"))),
    Step("ingest-papers", "v1", _cli("ingest-papers",
                                     str(ROOT / "datasets/academic/papers.jsonl"))),
    Step("embed", "v1", _cli("embed")),
    Step("ingest-coverage", "v1", _cli("ingest-coverage", "{coverage}", "--repo", "proj",
                                       "--root", "{proj}")),
    Step("update", "v2", _cli("ingest", "{proj}", "--name", "proj")),
    Step("communities", "v2", _cli("communities", "proj", "--detect", "--scope", "symbol",
                                   "--fresh")),
    Step("mutation", "v2", _mutation),
)
POINTS = (*STORE_FAILPOINTS, *FAILPOINTS, *INDEX_FAILPOINTS, *VECTOR_FAILPOINTS, "timed")


# Another checkout's own code reads its database (its engine): open it read-only and fold
# every row of every table, timestamps and run counters left out (graphdb.health's rules)
_DIGEST = """
import hashlib, json, re, sys
import polars as pl
from graphdb import Store
from schema import META, NODE_TABLES, REL_TABLES
iso = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)?"
try:
    store = Store.open(sys.argv[1], read_only=True)
except Exception as exc:
    print(json.dumps({"ok": False, "why": f"{type(exc).__name__}: {exc}"[:300]})); sys.exit()
h = hashlib.blake2b(digest_size=16)
try:
    for t in NODE_TABLES:
        f = store.cypher(f"MATCH (n:{t.name}) RETURN n.* ORDER BY n.id")
        if t is META:
            f = f.filter(~pl.col("n.id").str.starts_with("graph_version")
                         & ~pl.col("n.value").str.contains("^[0-9]{4}-[0-9]{2}-[0-9]{2}T"))
            f = f.with_columns(pl.col("n.value").str.replace_all(iso, "<time>"))
        f = f.select([c for c, d in f.schema.items() if not isinstance(d, pl.Datetime | pl.Date)
                      and not c.endswith("mtime_ns")])
        h.update(t.name.encode() + f.write_ndjson().encode())
    for r in REL_TABLES:
        f = store.cypher(f"MATCH (a)-[r:{r.name}]->(b) RETURN a.id AS `from`, b.id AS `to`, r.*")
        f = f.sort([c for c, d in f.schema.items() if not d.is_nested()], nulls_last=True)
        f = f.select([c for c, d in f.schema.items() if not isinstance(d, pl.Datetime | pl.Date)])
        h.update(r.name.encode() + f.write_ndjson().encode())
except Exception as exc:
    print(json.dumps({"ok": False, "why": f"{type(exc).__name__}: {exc}"[:300]})); sys.exit()
print(json.dumps({"ok": True, "digest": h.hexdigest()}))
"""


def digest(db: Path, *, graph_only: bool = False) -> tuple[bool, str, str]:
    """(check passed, content digest, what failed). ``graph_only``: derived indexes may lag
    (right after a kill: the next write brings them to the graph)."""
    if not TREE.own:
        done = subprocess.run([TREE.python, "-c", _DIGEST, str(db)], capture_output=True,
                              text=True, check=False, cwd=TREE.root,
                              env={**os.environ, "PYTHONPATH": str(TREE.root)})
        if done.returncode != 0:  # the engine crashed (e.g. SIGSEGV) opening it
            return False, "", f"opening died with exit {done.returncode}"
        found = json.loads(done.stdout.strip().splitlines()[-1])
        return found["ok"], found.get("digest", ""), found.get("why", "")
    report = check_database(db)
    failed = "; ".join(f"{f.check}: {f.detail}" for f in report.findings
                       if not f.ok and not (graph_only and f.derived))
    return (report.graph_ok if graph_only else report.ok), report.digest, failed


# ------------------------------------------------------------------------------------ trials
@dataclass
class Trial:
    step: str
    point: str
    n: int
    killed: bool
    opens: bool = False
    state: str = ""  # digest after the kill
    converged: bool = False
    detail: str = ""


DURATIONS: dict[str, float] = {}
CLEAN_FAILURES: dict[str, str] = {}


def clean_run(work: Work, out: Path,
              names: list[str] | None = None) -> dict[str, tuple[Path, str]]:
    """Every step once, no faults: the database after each, and its digest (and how long
    each took, for timed kills)."""
    db = out / "db"
    states: dict[str, tuple[Path, str]] = {}
    empty = out / "clean-0"
    vgdb("overview", "--db", str(empty))  # not a database yet: nothing to copy
    previous = None
    for step in STEPS:
        if names is not None and step.name not in names:
            continue
        if previous is not None:
            shutil.rmtree(db, ignore_errors=True)
            shutil.copytree(previous, db)
        work.use(step.rev)
        started = time.perf_counter()
        done = step.run(work, db, {})
        DURATIONS[step.name] = time.perf_counter() - started
        if done.returncode != 0:  # the release under test cannot even run it: said, and
            # the steps after it are left out (their starting state does not exist)
            print(f"clean {step.name} failed ({done.returncode}): {done.stderr[-600:]}")
            CLEAN_FAILURES[step.name] = f"exit {done.returncode}"
            break
        keep = out / f"clean-{step.name}"
        shutil.copytree(db, keep)
        ok, dig, failed = digest(keep)
        if not ok:  # reported, not hidden: no trial of this step can converge then
            print(f"clean {step.name}: its own check failed: {failed}")
            CLEAN_FAILURES[step.name] = failed
        states[step.name] = (keep, dig)
        previous = keep
    work.park()
    return states


def run_trials(work: Work, out: Path, states: dict[str, tuple[Path, str]], *,
               steps: list[str], points: tuple[str, ...], max_n: int,
               log: Callable[[str], None] = print) -> list[Trial]:
    trials: list[Trial] = []
    before: tuple[Path, str] | None = None
    for step in STEPS:
        if step.name not in states:
            continue
        if step.name in steps:
            work.use(step.rev)
            for point in points:
                for n in range(1, 10 if point == "timed" else max_n + 1):
                    trial = _trial(work, out, step, point, n, before, states[step.name][1])
                    if not trial.killed:
                        if point == "timed":
                            continue  # it finished before the kill: not a trial
                        break  # the step reaches this point fewer than n times
                    trials.append(trial)
                    log(f"{step.name:16} {point}#{n:<3} opens={trial.opens} "
                        f"converged={trial.converged} {trial.detail}")
        before = states[step.name]
    work.park()
    return trials


def _trial(work: Work, out: Path, step: Step, point: str, n: int,
           before: tuple[Path, str] | None, clean: str) -> Trial:
    db = out / "trial"
    shutil.rmtree(db, ignore_errors=True)
    if before is not None:
        shutil.copytree(before[0], db)
    if point == "timed":  # at n tenths of the step's clean duration
        env = {"VGDB_KILL_AFTER": f"{DURATIONS[step.name] * n / 10:.3f}"}
    elif TREE.own:
        env = {"VGDB_FAILPOINT": f"{point}#{n}"}
    elif n == 1:  # vgdb 0.1's failpoints take a bare name (the first time)
        env = {"VGDB_FAILPOINT": point}
    else:
        return Trial(step.name, point, n, killed=False)
    done = step.run(work, db, env)
    if done.returncode != -signal.SIGKILL:
        return Trial(step.name, point, n, killed=False)
    trial = Trial(step.name, point, n, killed=True)
    if not db.exists() or not any(db.glob("graph.*")):
        trial.opens = True  # killed before the database was created: nothing to open
    else:
        trial.opens, trial.state, failed = digest(db, graph_only=True)
        trial.detail = failed
    again = step.run(work, db, {})
    if again.returncode != 0:
        trial.detail += f" rerun exit {again.returncode}: {again.stderr[-300:]}"
        return trial
    ok, dig, failed = digest(db)
    trial.converged = ok and bool(dig) and dig == clean
    if not trial.converged:
        trial.detail += f" rerun digest differs ({failed})"
    return trial


def lost_or_leaked(trials: list[Trial], states: dict[str, tuple[Path, str]]) -> list[str]:
    """Pairs that disagree: killed after commit n vs killed before commit n+1 (same step);
    killed before commit 1 vs the state before the step."""
    problems = []
    by = {(t.step, t.point, t.n): t for t in trials}
    names = [s.name for s in STEPS]
    for t in trials:
        if t.point == "store:committed":
            nxt = by.get((t.step, "store:commit", t.n + 1))
            if nxt is not None and nxt.state and t.state and nxt.state != t.state:
                problems.append(f"{t.step}: after commit {t.n} != before commit {t.n + 1}")
        if t.point == "store:commit" and t.n == 1 and t.state:
            i = names.index(t.step)
            if i > 0 and states[names[i - 1]][1] != t.state:
                problems.append(f"{t.step}: killed before its first commit, yet the graph "
                                "changed")
    return problems


# --------------------------------------------------------------------------------- full disk
def disk_trials(work: Work, out: Path, sizes: list[float],
                log: Callable[[str], None] = print) -> list[dict[str, object]]:
    """Ingest, embed on a tmpfs of each size; then remount it larger, check and rerun."""
    results = []
    mount = out / "small-disk"
    for size in sizes:
        mount.mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={int(size * 1024)}k", "tmpfs",
                        str(mount)], check=True)
        try:
            db = mount / "db"
            row: dict[str, object] = {"mib": size, "runs": []}
            work.use("v1")
            for name in ("ingest", "ingest-session", "embed"):
                step = next(s for s in STEPS if s.name == name)
                done = step.run(work, db, {})
                full = done.returncode == 5 and "no space left on device" in done.stderr
                row["runs"].append(f"{name}: exit {done.returncode}"  # type: ignore[union-attr]
                                   + (" (disk full, clear error)" if full else ""))
                if done.returncode not in (0, 5):
                    row["unclear"] = done.stderr[-400:]
                if done.returncode != 0:
                    break
            subprocess.run(["mount", "-o", "remount,size=512m", str(mount)], check=True)
            ok, _, failed = digest(db, graph_only=True) if (db / "graph.lbug").exists() \
                else (True, "", "")
            row["graph_check_after_freeing"] = ok or failed
            for name in ("ingest", "ingest-session", "embed"):
                step = next(s for s in STEPS if s.name == name)
                again = step.run(work, db, {})
                if again.returncode != 0:
                    row["rerun"] = f"{name} exit {again.returncode}: {again.stderr[-300:]}"
                    break
            else:
                row["rerun"] = "ok"
            row["converged"] = digest(db)[1] == _clean_digest_after(work, out, "embed")
            results.append(row)
            log(json.dumps(row))
        finally:
            work.park()
            subprocess.run(["umount", str(mount)], check=False)
    return results


_CLEAN: dict[str, str] = {}


def _clean_digest_after(work: Work, out: Path, last: str) -> str:
    """The digest of ingest, ingest-session, embed run cleanly (computed once)."""
    if last not in _CLEAN:
        db = out / "disk-clean"
        shutil.rmtree(db, ignore_errors=True)
        work.use("v1")
        for name in ("ingest", "ingest-session", "embed"):
            next(s for s in STEPS if s.name == name).run(work, db, {})
        _CLEAN[last] = digest(db)[1]
    return _CLEAN[last]


# -------------------------------------------------------------------------------------- main
def summarize(trials: list[Trial], problems: list[str]) -> str:
    lines = ["| step | kill trials | at store commit / committed / checkpoint(ed) / ingest "
             "phase / keyword+vector index / timed | opened and checked | converged |",
             "|---|---:|---|---:|---:|"]
    for step in STEPS:
        mine = [t for t in trials if t.step == step.name]
        if not mine:
            continue
        kinds = [sum(1 for t in mine if t.point == p) for p in ("store:commit",
                 "store:committed")] + [sum(1 for t in mine if "checkpoint" in t.point),
                                        sum(1 for t in mine if t.point in FAILPOINTS),
                                        sum(1 for t in mine if t.point in INDEX_FAILPOINTS
                                            or t.point in VECTOR_FAILPOINTS),
                                        sum(1 for t in mine if t.point == "timed")]
        lines.append(f"| {step.name} | {len(mine)} | {' / '.join(map(str, kinds))} | "
                     f"{sum(t.opens for t in mine)} | {sum(t.converged for t in mine)} |")
    total = len(trials)
    lines.append(f"| **all** | **{total}** | | **{sum(t.opens for t in trials)}** | "
                 f"**{sum(t.converged for t in trials)}** |")
    lines.append("")
    lines.append(f"committed facts lost or uncommitted ones visible: {len(problems)}"
                 + "".join(f"\n- {p}" for p in problems))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default=",".join(s.name for s in STEPS))
    parser.add_argument("--max-n", type=int, default=12,
                        help="kill at most at the n-th occurrence of each point")
    parser.add_argument("--disk", default="", help="tmpfs sizes in MiB for full-disk trials")
    parser.add_argument("--keep", type=Path, help="work here and keep it")
    parser.add_argument("--tree", type=Path, help="test another checkout (with its own .venv): "
                        "only the ingest's phase failpoints and timed kills, no mutation step")
    args = parser.parse_args(argv)
    points = POINTS
    steps = args.steps.split(",")
    if args.tree:
        TREE.root, TREE.python = args.tree.resolve(), str(args.tree / ".venv" / "bin" / "python")
        points = (*FAILPOINTS, "timed")
        steps = [s for s in steps if s != "mutation"]
    out = args.keep or Path(tempfile.mkdtemp(prefix="vgdb-faults-"))
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    work = make_work(out)
    states = clean_run(work, out, [s.name for s in STEPS
                                   if not (args.tree and s.name == "mutation")])
    print(f"clean run: {len(STEPS)} steps in {time.perf_counter() - started:.1f} s")
    trials = run_trials(work, out, states, steps=steps, points=points, max_n=args.max_n)
    problems = lost_or_leaked(trials, states)
    print()
    print(summarize(trials, problems))
    for name, why in CLEAN_FAILURES.items():
        print(f"without any fault, step {name} failed: {why}")
    if args.disk:
        disk_trials(work, out, [float(x) for x in args.disk.split(",")])
    print(f"\n{time.perf_counter() - started:.0f} s; work in {out}")
    bad = [t for t in trials if not (t.opens and t.converged)] or problems
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
