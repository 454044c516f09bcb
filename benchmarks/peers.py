"""The peer tools the ingest benchmark compares with, installed for the benchmarks only.

code-review-graph (PyPI) and GitNexus (npm) are never dependencies of vgdb: this script
installs pinned versions into ``benchmarks/.peers/`` (git-ignored; ``VGDB_BENCH_PEERS``
overrides the place), and ``benchmarks/ingest.py`` runs whichever is installed there.

    .venv/bin/python benchmarks/peers.py install [crg|gitnexus ...]   # default: both
    .venv/bin/python benchmarks/peers.py status

code-review-graph gets its own venv with every distribution pinned
(``benchmarks/peers-crg.txt``, the set measured before in RESULTS.md); GitNexus is installed
with npm at a pinned version (its own dependencies as npm resolves them for that version).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS_DIR = Path(os.environ.get("VGDB_BENCH_PEERS", HERE / ".peers"))
CRG_VERSION = "2.3.9"
CRG_REQUIREMENTS = HERE / "peers-crg.txt"
GITNEXUS_VERSION = "1.6.12"


@dataclass(frozen=True)
class Peer:
    key: str  # the name ``install`` and ``--peers`` take
    title: str
    version: str
    executable: Path

    @property
    def installed(self) -> bool:
        return self.executable.exists()

    def install_hint(self) -> str:
        return f".venv/bin/python benchmarks/peers.py install {self.key}"


PEERS: dict[str, Peer] = {p.key: p for p in (
    Peer("crg", "code-review-graph", CRG_VERSION, PEERS_DIR / "crg" / "bin" / "code-review-graph"),
    Peer("gitnexus", "GitNexus", GITNEXUS_VERSION,
         PEERS_DIR / "gitnexus" / "node_modules" / ".bin" / "gitnexus"),
)}


def install_crg(peer: Peer) -> None:
    """A venv of the running Python with the pinned requirements (no other resolution)."""
    venv = PEERS_DIR / "crg"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-input",
                    "--require-virtualenv", "-r", str(CRG_REQUIREMENTS)], check=True)


#: GitNexus's dependencies whose install scripts must run (npm 11 runs none unless allowed):
#: its native grammars and LadybugDB bindings (prebuilt binaries, copied into place) and its
#: own postinstall; its telemetry ping (@scarf/scarf) is not allowed.
GITNEXUS_SCRIPTS = {
    "gitnexus": True, "@ladybugdb/core": True, "tree-sitter": True, "@scarf/scarf": False,
    **{f"tree-sitter-{lang}": True for lang in (
        "c-sharp", "cpp", "go", "java", "javascript", "php", "python", "ruby", "rust",
        "typescript")},
}


def install_gitnexus(peer: Peer) -> None:
    """``npm install gitnexus@VERSION`` into its own prefix (no global install)."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not on PATH: GitNexus needs Node.js 20+ and npm")
    prefix = PEERS_DIR / "gitnexus"
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "package.json").write_text(json.dumps(
        {"name": "vgdb-bench-peers", "private": True, "allowScripts": GITNEXUS_SCRIPTS},
        indent=2) + "\n")
    env = {**os.environ, "SCARF_ANALYTICS": "false"}  # older npm runs every script
    subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                    "--save-exact", f"gitnexus@{peer.version}"], check=True, env=env)


INSTALLERS = {"crg": install_crg, "gitnexus": install_gitnexus}


def status() -> list[str]:
    lines = []
    for peer in PEERS.values():
        if peer.installed:
            lines.append(f"{peer.title} {peer.version}: installed ({peer.executable})")
        else:
            lines.append(f"{peer.title} {peer.version}: not installed; {peer.install_hint()}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install the peers (default: all)")
    inst.add_argument("names", nargs="*", metavar="|".join(PEERS))
    sub.add_parser("status", help="which peers are installed")
    args = ap.parse_args(argv)
    if args.command == "status":
        print("\n".join(status()))
        return 0
    unknown = [n for n in args.names if n not in PEERS]
    if unknown:
        ap.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")
    failed = []
    for key in args.names or list(PEERS):
        peer = PEERS[key]
        print(f"installing {peer.title} {peer.version} into {PEERS_DIR} ...", flush=True)
        try:
            INSTALLERS[key](peer)
        except (subprocess.CalledProcessError, SystemExit, OSError) as exc:
            print(f"{peer.title}: install failed: {exc}", file=sys.stderr)
            failed.append(key)
            continue
        if not peer.installed:
            print(f"{peer.title}: installed, but {peer.executable} is missing", file=sys.stderr)
            failed.append(key)
    print("\n".join(status()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
