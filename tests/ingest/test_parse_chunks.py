"""The parse pool's chunks: largest files first, a shrinking share of the bytes each, every
file once; the results come back in the order of the tasks."""

from __future__ import annotations

from ingest.parsing import parse_tasks, plan_chunks
from ingest.worker import ParseTask


def _tree(tmp_path, sizes: list[int]) -> list[ParseTask]:
    tasks = []
    for i, size in enumerate(sizes):
        path = tmp_path / f"m{i:03d}.py"
        body = "".join(f"def f{k}():\n    return g{k}()\n" for k in range(size // 30 + 1))
        path.write_text(body[:max(size, 1)].rsplit("\n", 1)[0] + "\n")
        tasks.append(ParseTask(str(path), path.name, "python"))
    return tasks


def test_chunks_hand_out_the_largest_files_first_in_shrinking_shares(tmp_path) -> None:
    sizes = [3_000, 400_000, 90_000, 500, 250_000, 70_000] + [2_000] * 60
    tasks = _tree(tmp_path, sizes)
    chunks = plan_chunks(tasks, 2)
    planned = [t for chunk in chunks for t in chunk]
    assert sorted(t.path for t in planned) == sorted(t.path for t in tasks)  # each once
    real = {t.path: (tmp_path / t.path).stat().st_size for t in tasks}
    in_order = [real[t.path] for t in planned]
    assert in_order == sorted(in_order, reverse=True)
    # the biggest file alone holds more than the first chunk's share: a chunk of its own;
    # the last chunks are small (a worker finishing early waits for little)
    assert [t.path for t in chunks[0]] == ["m001.py"]
    assert len(chunks) >= 3
    assert sum(real[t.path] for t in chunks[-1]) <= 64 * 1024
    assert all(len(chunk) <= 64 for chunk in chunks)


def test_results_come_back_in_the_order_of_the_tasks(tmp_path) -> None:
    tasks = _tree(tmp_path, [500 + 3_000 * (i % 7) for i in range(40)])
    results = parse_tasks(tasks, workers=2, progress=None)
    assert [r.path for r in results] == [t.path for t in tasks]
    assert all(r.extract is not None and r.extract.symbols for r in results)
