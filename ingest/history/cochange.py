"""Files that change together: pairs counted over the commits that changed both.

Huge commits (mass renames, reformatting, vendoring) say nothing about coupling and would
add thousands of pairs each, so commits that change more than ``max_files`` files are left
out, as are pairs seen fewer than ``min_count`` times (one shared commit is noise).
"""

from __future__ import annotations

import polars as pl

__all__ = ["co_changes"]


def co_changes(changed: pl.DataFrame, *, max_files: int = 50,
               min_count: int = 2) -> pl.DataFrame:
    """CO_CHANGED rows (from, to, count, weight) from ``changed`` (commit, file) pairs.

    Each pair is stored once with ``from < to``; ``weight`` implements the Jaccard index [1]_
    of the two files' commit sets, count / (commits(a) + commits(b) - count).

    References
    ----------
    .. [1] P. Jaccard, "The distribution of the flora in the alpine zone", New Phytologist
       11(2):37-50, 1912. doi:10.1111/j.1469-8137.1912.tb05611.x
    """
    empty = pl.DataFrame(schema={"from": pl.Utf8, "to": pl.Utf8, "count": pl.Int64,
                                 "weight": pl.Float64})
    if changed.is_empty():
        return empty
    changed = changed.unique(["commit", "file"])
    per_file = changed.group_by("file").agg(pl.len().alias("n"))
    small = (changed.group_by("commit").agg(pl.len().alias("size"))
             .filter((pl.col("size") > 1) & (pl.col("size") <= max_files)))
    kept = changed.join(small.select("commit"), on="commit")
    pairs = (kept.join(kept, on="commit", suffix="_b")
             .filter(pl.col("file") < pl.col("file_b"))
             .group_by("file", "file_b").agg(pl.len().cast(pl.Int64).alias("count"))
             .filter(pl.col("count") >= min_count))
    if pairs.is_empty():
        return empty
    pairs = (pairs.join(per_file, on="file")
             .join(per_file.rename({"file": "file_b", "n": "n_b"}), on="file_b"))
    return pairs.select(
        pl.col("file").alias("from"), pl.col("file_b").alias("to"), "count",
        (pl.col("count") / (pl.col("n") + pl.col("n_b") - pl.col("count"))).alias("weight"),
    ).sort("from", "to")
