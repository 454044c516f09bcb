"""Storage: the Kuzu graph and its directory (lock, manifest), read queries, write
transactions and bulk loads. The only package that imports ``kuzu`` (and later ``hnswlib``)."""

from graphdb.faults import FAILPOINTS, failpoint
from graphdb.loader import STRUCTURAL, CodeLoad, load_code, touch_files
from graphdb.readonly import check_read_only
from graphdb.store import DEFAULT_DB, Store, Transaction

__all__ = [
    "DEFAULT_DB", "FAILPOINTS", "STRUCTURAL", "CodeLoad", "Store", "Transaction",
    "check_read_only", "failpoint", "load_code", "touch_files",
]
