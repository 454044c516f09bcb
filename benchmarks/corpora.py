"""Repositories the benchmarks fetch for the purpose, each at a pinned commit.

    .venv/bin/python benchmarks/corpora.py fetch thrift [--mirror GIT_DIR]
    .venv/bin/python benchmarks/corpora.py path thrift      # where it is (fetches if needed)
    .venv/bin/python benchmarks/ingest.py --corpus thrift --peers

A corpus is the tree of one commit (``git archive``: no ``.git``, so an ingest reads the
code only, as with the standard library), unpacked once into
``$XDG_CACHE_HOME/vgdb-bench/corpora/<name>-<commit>/`` (``VGDB_BENCH_CORPORA`` overrides the
place). The commit is fetched alone (``git fetch --depth 1 URL COMMIT``) from GitHub, or from
``--mirror``: a local clone that has the commit, for a machine without access to GitHub.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Corpus:
    name: str
    repository: str  # owner/name on GitHub
    commit: str
    why: str
    excludes: tuple[str, ...] = ()  # passed to ``vgdb ingest --exclude``, and kept out of peers

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}.git"


CORPORA: dict[str, Corpus] = {c.name: c for c in (
    Corpus("thrift", "apache/thrift", "c8f876181c4fa132b5a6b42fdbfe04db06b4eee9",
           "Apache Thrift: one IDL, a runtime library per language in lib/<language>/ "
           "(C++, C, Java, Go, PHP, Ruby, Python, C#, JavaScript, TypeScript, Rust, Lua, "
           "Kotlin, Bash scripts): 14 of vgdb's code languages, 13.8 MB"),
    Corpus("protobuf", "protocolbuffers/protobuf", "e712d276bcead35cad45e305463f5e542246351e",
           "Protocol Buffers: C++, C (upb), Java, C#, Python, PHP, Ruby, Rust, Kotlin; "
           "~50 MB of code, larger and with fewer languages than thrift"),
)}


def cache_dir() -> Path:
    env = os.environ.get("VGDB_BENCH_CORPORA")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vgdb-bench" / "corpora"


def location(corpus: Corpus) -> Path:
    return cache_dir() / f"{corpus.name}-{corpus.commit[:12]}"


def fetch(corpus: Corpus, mirror: Path | None = None) -> Path:
    """The corpus's tree, fetched and unpacked unless it already is."""
    dest = location(corpus)
    done = dest.with_name(dest.name + ".commit")
    if dest.is_dir() and done.exists() and done.read_text().strip() == corpus.commit:
        return dest
    source = str(mirror) if mirror else corpus.url
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"vgdb-corpus-{corpus.name}-",
                                     dir=dest.parent) as tmp:
        git_dir = Path(tmp) / "repo.git"
        subprocess.run(["git", "init", "-q", "--bare", str(git_dir)], check=True)
        subprocess.run(["git", "--git-dir", str(git_dir), "fetch", "-q", "--depth", "1",
                        source, corpus.commit], check=True)
        tree = Path(tmp) / "tree"
        tree.mkdir()
        with subprocess.Popen(["git", "--git-dir", str(git_dir), "archive", corpus.commit],
                              stdout=subprocess.PIPE) as archive:
            subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, check=True)
        if archive.returncode != 0:
            raise subprocess.CalledProcessError(archive.returncode, "git archive")
        if dest.exists():
            shutil.rmtree(dest)
        tree.rename(dest)
    done.write_text(corpus.commit + "\n")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("fetch", "path", "list"))
    ap.add_argument("name", nargs="?", choices=list(CORPORA))
    ap.add_argument("--mirror", type=Path,
                    help="a local git repository holding the commit (instead of GitHub)")
    args = ap.parse_args(argv)
    if args.command == "list":
        for c in CORPORA.values():
            print(f"{c.name}: {c.repository} @ {c.commit}\n    {c.why}")
        return 0
    if args.name is None:
        ap.error("name a corpus: " + ", ".join(CORPORA))
    corpus = CORPORA[args.name]
    try:
        path = fetch(corpus, args.mirror)
    except subprocess.CalledProcessError as exc:
        print(f"could not fetch {corpus.repository} @ {corpus.commit} from "
              f"{args.mirror or corpus.url}: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
