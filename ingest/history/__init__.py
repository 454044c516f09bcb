"""Git history: commits, people, file changes, symbol attribution and lineage, co-change."""
