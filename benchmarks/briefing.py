"""Briefing latency and token accounting on a real graph.

    python -m benchmarks.briefing --db .vgdb --repo vectorgraphdb [--files 40]

For every ``step``-th current code file of the repository, ``briefing`` at each tier (warm:
one untimed call first); prints p50/p95 per tier, whether each answer was within its budget
(cl100k_base), and the error of the 4-characters-a-token estimate against cl100k_base on the
same texts (the fallback when the tokenizer's file is missing).
"""

from __future__ import annotations

import argparse
import statistics
import time

from graphdb import Store
from queries.briefing import briefing, count_tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default=".vgdb")
    parser.add_argument("--repo", default="vectorgraphdb")
    parser.add_argument("--files", type=int, default=40)
    args = parser.parse_args()
    with Store.open(args.db, read_only=True) as store:
        paths = store.cypher("MATCH (f:File) WHERE f.repo = $r AND f.valid_to IS NULL AND "
                             "f.source <> 'git' AND f.language = 'python' RETURN f.path "
                             "ORDER BY f.path", {"r": args.repo})["f.path"].to_list()
        step = max(1, len(paths) // args.files)
        chosen = paths[::step][:args.files]
        briefing(store, files=[chosen[0]])
        texts: list[str] = []
        for tier in ("micro", "standard", "full"):
            times, over = [], 0
            for path in chosen:
                started = time.perf_counter()
                b = briefing(store, files=[path], tier=tier)
                times.append((time.perf_counter() - started) * 1000)
                over += b.tokens > b.max_tokens
                texts.append(b.text)
            times.sort()
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(f"{tier:8s} n={len(times)} p50={statistics.median(times):.0f} ms "
                  f"p95={p95:.0f} ms over budget: {over}")
        errors = [((len(t) + 3) // 4 - count_tokens(t)) / count_tokens(t) for t in texts]
        print(f"chars/4 vs cl100k_base on {len(texts)} briefing texts: mean "
              f"{statistics.mean(errors):+.1%}, min {min(errors):+.1%}, "
              f"max {max(errors):+.1%}")


if __name__ == "__main__":
    main()
