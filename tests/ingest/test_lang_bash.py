"""Golden test of Bash extraction by the query engine (queries/bash.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
#!/usr/bin/env bash
set -euo pipefail

source ./lib/log.sh
. "$(dirname "$0")/common.sh"

# Build the release archive.
build() {
    log_info "building"
    make -C src all
    package_dist "$1"
}

function package_dist {
    tar -czf "dist/$1.tar.gz" build/
}

test_build() {
    build v1 && assert_file dist/v1.tar.gz
}

build "$@"
"""


def test_bash_rows() -> None:
    fx = parse("bash", SOURCE, "scripts/release.sh")
    assert fx.language == "bash" and fx.error_lines == []
    assert symbols(fx) == [
        ("build", "function", 8, 12, "", False),
        ("package_dist", "function", 14, 16, "", False),
        ("test_build", "function", 18, 20, "", True),
    ]
    assert fx.symbols[0].docstring == "Build the release archive."
    assert imports(fx) == [
        ("./lib/log.sh", "", "", 4),
        ("./common.sh", "", "", 5),  # . "$(dirname "$0")/common.sh": next to the script
    ]
    assert calls(fx) == [  # source and . are imports, not calls
        ("", "set", 2),
        ("", "dirname", 5),
        ("build", "log_info", 9),
        ("build", "make", 10),
        ("build", "package_dist", 11),
        ("package_dist", "tar", 15),
        ("test_build", "build", 19),
        ("test_build", "assert_file", 19),
        ("", "build", 22),
    ]
    assert inherits(fx) == []  # no inheritance in Bash
