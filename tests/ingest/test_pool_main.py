"""Parse workers do not run the parent's main script again, unless a task needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = '''
import os, sys
sys.path.insert(0, {repo!r})
with open({marker!r}, "a") as out:  # each process that runs this script adds its pid
    out.write(f"{{os.getpid()}}\\n")

from ingest.pool import process_pool
from ingest.worker import ParseTask, parse_many


def square(x):
    return x * x


if __name__ == "__main__":
    with process_pool(2) as pool:
        tasks = [ParseTask({source!r}, "m.py", "python")]
        first = pool.submit(parse_many, tasks).result()
        before = open({marker!r}).read().split()
        squared = pool.submit(square, 7).result()  # a function of this script
    after = open({marker!r}).read().split()
    print(len(first[0].extract.symbols), len(before), squared, len(after),
          after[0] == str(os.getpid()))
'''


def test_workers_skip_the_main_script_until_a_task_needs_it(tmp_path: Path) -> None:
    """multiprocessing runs the main script again in each worker (a notebook's or a
    benchmark's imports, before the first file); :mod:`ingest.fork_main` makes that happen
    only in a worker that gets a function of the script, and there only once."""
    marker, source, script = tmp_path / "ran", tmp_path / "m.py", tmp_path / "script.py"
    source.write_text("def f():\n    return 1\n")
    repo = str(Path(__file__).resolve().parents[2])
    script.write_text(_SCRIPT.format(repo=repo, marker=str(marker), source=str(source)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the file parsed with the script run once (by itself); then the worker that got
    # `square` ran the script (as multiprocessing's `__mp_main__`) and squared 7
    assert done.stdout.split() == ["1", "1", "49", "2", "True"]


_UNGUARDED = '''
import sys, warnings
sys.path.insert(0, {repo!r})
from graphdb import Store
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, ingest_repository

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with Store.open({db!r}) as store:
        summary = ingest_repository(store, {src!r}, options=IngestOptions(
            workers=2, history=HistoryOptions(enabled=False), embed=False))
print(summary.parsed, len(caught))
'''


def test_a_script_without_a_main_guard_ingests_with_workers(tmp_path: Path) -> None:
    """No ``if __name__ == "__main__":`` guard: the workers used to run the script's
    ingest again (multiprocessing refused, and vgdb warned and parsed in one process)."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(30):
        (src / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    script = tmp_path / "script.py"
    repo = str(Path(__file__).resolve().parents[2])
    script.write_text(_UNGUARDED.format(repo=repo, db=str(tmp_path / "db"), src=str(src)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["30", "0"]  # every file parsed, no warning
    assert "bootstrapping phase" not in done.stderr
