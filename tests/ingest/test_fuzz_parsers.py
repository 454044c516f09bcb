"""Property-based fuzzing of every parser of ``ingest/`` (issue 23): whatever the input —
mutated valid files, random bytes, other encodings, deep nesting, hostile names, raw git
objects — each parser either parses it or reports it as it documents (an issue with file
and line, a skipped file with a reason, a typed ``VgdbError``); never another exception,
never a string that cannot be stored. Generators and checks: ``tests/ingest/fuzzing.py``;
the seeded long run (>= 10,000 inputs per parser): ``benchmarks/fuzz_parsers.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from tests.ingest.fuzzing import PARSERS, Parser


def _property(parser: Parser):
    @given(parser.inputs)
    def run(value: object) -> None:
        with tempfile.TemporaryDirectory(prefix="parsers-fuzz-") as tmp:
            assert parser.check(value, Path(tmp)) in ("parsed", "bad")
    return run


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_parser_meets_its_contract_on_generated_input(name: str) -> None:
    _property(PARSERS[name])()
