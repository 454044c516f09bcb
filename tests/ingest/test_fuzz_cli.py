"""The ingest commands on generated hostile files (issue 23): through ``api.cli.main`` (the
command's own error presenter), each exit code is one the command documents — never 70 —
and nothing prints a traceback. A bounded sample here; ``benchmarks/fuzz_parsers.py``
runs more through the real ``vgdb`` process."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.helpers import vgdb_in_process
from tests.ingest.fuzzing import CLI_CASES, CLI_EXITS


@pytest.mark.parametrize("command", sorted(CLI_CASES))
def test_ingest_command_exits_as_documented_on_generated_files(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    strategy, build = CLI_CASES[command]

    @settings(max_examples=4, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(value: object) -> None:
        with tempfile.TemporaryDirectory(prefix="parsers-fuzz-cli-") as tmp:
            for argv in build(value, Path(tmp)):
                result = vgdb_in_process(capsys, *argv)
                if argv[0] != command:
                    continue  # a set-up step (the ingest before ingest-coverage)
                assert result.returncode in CLI_EXITS[command], result.stderr
                assert "internal error" not in result.stderr
                assert "Traceback" not in result.stderr

    run()
