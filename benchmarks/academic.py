"""Academic ingest benchmark: 100,000 bibliographic records, OpenAlex JSONL and BibTeX.

The records are generated (seed 11) in the shape of real ones: titles, venues and author
names are drawn from the real records of ``datasets/academic`` (words recombined), and the
field distributions follow OpenAlex works — 85% with a DOI, 10% arXiv-only, 5% title-only;
1-12 authors (mean ~4) with an ORCID for a third; 0-40 referenced works (mean ~12), 85% of
them to other generated works and the rest to works outside the set; an abstract (inverted
index, 80-250 words) for 70%; 1-3 topics for 80%; publication years skewed to recent ones.
The same works are written as BibTeX entries (LaTeX accents in a tenth of the names).

One run, each step best of ``--repeat``:

1. baseline: ``json.loads`` of every line of the JSONL file;
2. ``ingest.academic.ingest_papers`` of the JSONL into a fresh database (parse, identity,
   merge, one transaction of COPYs), with its parse/load phases;
3. the same again into that database (idempotent: nothing written);
4. baseline: ``bibtexparser.parse_string`` (its default middleware) of the BibTeX file;
5. ``ingest_papers`` of the BibTeX into a fresh database, and into the database of step 2
   (every record merges with an existing paper).

    .venv/bin/python benchmarks/academic.py [--records 100000] [--seed 11] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bibtexparser

from benchmarks.ingest import machine
from graphdb import Store
from ingest.academic import ingest_papers, parse_bibliography

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "datasets" / "academic"
_ACCENTS = {"e": r"{\'e}", "o": r"{\"o}", "a": r"{\`a}", "u": r"{\"u}"}


def _vocabulary() -> tuple[list[str], list[str], list[str]]:
    """Title words, venues and author names of the real records in datasets/academic."""
    words: list[str] = []
    venues: set[str] = set()
    names: set[str] = set()
    for path in sorted(DATA.glob("*")):
        if path.suffix not in (".bib", ".jsonl", ".json"):
            continue
        for r in parse_bibliography(path.read_bytes(), path=path.name).records:
            words += r.title.split()
            if r.venue:
                venues.add(r.venue)
            names.update(a.name for a in r.authors)
    if not words:
        raise SystemExit(f"no records under {DATA}: the vocabulary comes from them")
    return words, sorted(venues), sorted(names)


def _orcid(j: int, i: int) -> str:
    return f"https://orcid.org/0000-0001-{j:04d}-{i % 9999:04d}"


def generate(n: int, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    """``n`` OpenAlex-shaped works and the same works as BibTeX entries."""
    rng = random.Random(seed)
    words, venues, names = _vocabulary()
    firsts = sorted({x.split()[0] for x in names})
    lasts = sorted({x.split()[-1] for x in names})
    works, entries = [], []
    for i in range(n):
        year = min(2025, int(2025 - rng.expovariate(1 / 12)))
        title = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16))).capitalize()
        draw = rng.random()
        doi = f"10.{1000 + i % 8000}/gen.{seed}.{i}" if draw < 0.85 else ""
        arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{i % 100000:05d}" \
            if 0.85 <= draw < 0.95 else ""
        k = max(1, min(12, int(rng.expovariate(1 / 4)) + 1))
        authors = [(rng.choice(firsts), rng.choice(lasts)) for _ in range(k)]
        refs = [f"W{rng.randrange(n)}" if rng.random() < 0.85 else f"W9{rng.randrange(10**8)}"
                for _ in range(min(40, int(rng.expovariate(1 / 12))))]
        abstract = None
        if rng.random() < 0.7:
            abstract = {}
            for pos in range(rng.randint(80, 250)):
                abstract.setdefault(rng.choice(words), []).append(pos)
        venue = rng.choice(venues)
        work = {
            "id": f"https://openalex.org/W{i}", "doi": f"https://doi.org/{doi}" if doi else None,
            "display_name": title, "publication_year": year, "type": "article",
            "authorships": [{"author_position": "first" if j == 0 else "middle",
                             "author": {"id": f"https://openalex.org/A{hash((f, la)) % 10**9}",
                                        "display_name": f"{f} {la}",
                                        "orcid": _orcid(j, i) if rng.random() < 0.33 else None},
                             "institutions": [{"display_name": f"{la} Institute"}]}
                            for j, (f, la) in enumerate(authors)],
            "primary_location": {"source": {"display_name": venue},
                                 "landing_page_url": f"https://arxiv.org/abs/{arxiv}" if arxiv
                                 else f"https://example.org/{i}"},
            "referenced_works": [f"https://openalex.org/{r}" for r in refs],
            "topics": [{"display_name": " ".join(rng.choice(words) for _ in range(3)),
                        "score": round(rng.random(), 3)} for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.8 else [],
            "abstract_inverted_index": abstract,
        }
        works.append(work)
        bib_authors = " and ".join(
            f"{la}, {''.join(_ACCENTS.get(c, c) for c in f) if rng.random() < 0.1 else f}"
            for f, la in authors)
        fields = [f"  title = {{{title}}}", f"  author = {{{bib_authors}}}",
                  f"  journal = {{{venue}}}", f"  year = {{{year}}}"]
        if doi:
            fields.append(f"  doi = {{{doi}}}")
        if arxiv:
            fields += [f"  eprint = {{{arxiv}}}", "  archiveprefix = {arXiv}"]
        entries.append(f"@article{{w{i},\n" + ",\n".join(fields) + "\n}\n")
    return works, entries


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, list[float], Any]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), times, result


def _ingest(db: Path, files: list[Path], *, fresh: bool = True) -> Any:
    if fresh and db.exists():
        shutil.rmtree(db)
    with Store.open(db) as store:
        return ingest_papers(store, files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vgdb-academic-"))
    n = args.records
    print(json.dumps({"machine": machine(), "records": n, "seed": args.seed,
                      "repeat": args.repeat}))
    t = time.perf_counter()
    works, entries = generate(n, args.seed)
    jsonl, bib = tmp / "works.jsonl", tmp / "works.bib"
    jsonl.write_text("".join(json.dumps(w) + "\n" for w in works), encoding="utf-8")
    bib.write_text("".join(entries), encoding="utf-8")
    del works, entries
    print(f"generated in {time.perf_counter() - t:.1f} s: {jsonl.stat().st_size >> 20} MiB "
          f"JSONL, {bib.stat().st_size >> 20} MiB BibTeX")
    results: dict[str, Any] = {}

    def row(name: str, seconds: float, times: list[float], base: float | None = None) -> None:
        results[name] = {"seconds": round(seconds, 3), "all": [round(x, 3) for x in times],
                         "records_per_s": round(n / seconds)}
        ratio = f"  x{seconds / base:.1f} the baseline" if base else ""
        print(f"{name:<44} {seconds:8.2f} s  {n / seconds:10,.0f} records/s  "
              f"(runs {', '.join(f'{x:.2f}' for x in times)}){ratio}")

    base_json, times, _ = best(lambda: [json.loads(x) for x in jsonl.read_bytes().splitlines()],
                               args.repeat)
    row("baseline: read + json.loads per line", base_json, times)
    db = tmp / "db"
    seconds, times, summary = best(lambda: _ingest(db, [jsonl]), args.repeat)
    row("ingest-papers OpenAlex JSONL, fresh db", seconds, times, base_json)
    results["openalex_summary"] = {"seconds": summary.to_dict()["seconds"],
                                   "counts": summary.counts, "written": summary.written}
    print(f"  phases {summary.to_dict()['seconds']}, written {summary.written}")
    seconds, times, again = best(lambda: _ingest(db, [jsonl], fresh=False), args.repeat)
    row("ingest-papers OpenAlex JSONL again (no-op)", seconds, times, base_json)
    assert again.written == {}, again.written
    base_bib, times, lib = best(
        lambda: bibtexparser.parse_string(bib.read_text(encoding="utf-8")), args.repeat)
    assert len(lib.entries) == n, len(lib.entries)
    row("baseline: read + bibtexparser.parse_string", base_bib, times)
    lib = None
    db2 = tmp / "db2"
    seconds, times, summary = best(lambda: _ingest(db2, [bib]), args.repeat)
    row("ingest-papers BibTeX, fresh db", seconds, times, base_bib)
    print(f"  phases {summary.to_dict()['seconds']}, written {summary.written}")
    start = time.perf_counter()
    summary = _ingest(db, [bib], fresh=False)
    merged = time.perf_counter() - start
    row("ingest-papers BibTeX into the OpenAlex db", merged, [merged], base_bib)
    print(f"  phases {summary.to_dict()['seconds']}, counts {summary.counts}")
    results["bibtex_merge_counts"] = summary.counts
    print(json.dumps(results))
    if not args.keep:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
