"""Static test selection under other spreading settings, on mutants already run.

Reads the cache of ``benchmarks/impact_mutation.py`` (its mutants, their failing items, the
database of the repository it ingested) and recomputes vgdb's static selection for each
setting given as JSON: ``res`` (a factor per edge resolution,
``ImpactOptions.resolution_weights``), ``decay``, ``budget``, ``min_score``, ``depth``. No
suite is run, so a sweep takes seconds; the scores are the benchmark's own (mutant recall,
test recall, mean share of the suite selected). ``--per-mutant`` lists the mutants whose
selection differs from the default's under the first setting.

    .venv/bin/python benchmarks/impact_weights.py --cache /tmp/recall-mut --repo click \
        '{}' '{"res": {"inheritance": 0.5}}' '{"budget": 0.2}' [--per-mutant]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import impact_mutation as im

from graphdb import Store
from queries.impact import impact
from queries.impact.model import DEFAULT_IMPACT


def select(store: Store, rows: list[dict], setting: dict) -> None:
    options = dataclasses.replace(DEFAULT_IMPACT, decay=setting.get("decay", DEFAULT_IMPACT.decay),
                                  resolution_weights=tuple(setting.get("res", {}).items()))
    spread = dict(im.SPREAD, **{k: setting[k] for k in ("budget", "min_score", "depth")
                                if k in setting})
    for r in rows:
        r["vgdb"] = list(impact(store, [r["sym"]], coverage=False, options=options,
                                **spread).test_ids())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("settings", nargs="*", default=["{}"])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--per-mutant", action="store_true")
    args = parser.parse_args(argv)
    base = args.cache / args.repo
    items_file = base / "items.json"
    if not items_file.exists():
        items_file.write_text(json.dumps(im.collect(base / "venv/bin/python", base / "checkout")))
    items = json.loads(items_file.read_text())
    rows = [json.loads(line) for line in (base / "mutants.jsonl").open()]
    rows = [r for r in rows if not r.get("skipped") and r["seed"] == args.seed]
    n_tests = len({im.base_id(i) for i in items})
    for r in rows:
        r["breaks_all"] = len(r["failing"]) >= n_tests
    db = next(p for p in sorted(base.glob("vgdb-*.db")) if "cov" not in p.name)
    print(f"{args.repo}: {len(rows)} mutants, {len(items)} items; load {os.getloadavg()}")
    with Store.open(str(db), read_only=True) as store:
        for text in args.settings:
            setting = json.loads(text)
            start = time.perf_counter()
            select(store, rows, setting)
            scores = {k: round(v, 3) for k, v in im.score(rows, items, "vgdb").items()}
            print(f"{json.dumps(setting):50} {scores}  {time.perf_counter() - start:.0f} s")
        if args.per_mutant and args.settings:
            select(store, rows, {})
            before = {r["qualname"]: r["vgdb"] for r in rows}
            select(store, rows, json.loads(args.settings[0]))
            for r in rows:
                ran, ran0 = im.ran_items("vgdb", r, items), im.expand(before[r["qualname"]], items)
                if ran != ran0:
                    r0 = dict(r, vgdb=before[r["qualname"]])
                    print(f"  {r['qualname'][:40]:40} failing {len(im.hits(r, ran)):5}  "
                          f"selected {len(ran0)} -> {len(ran)}  missed "
                          f"{im.hits(r0, ran0).count(False)} -> {im.hits(r, ran).count(False)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
