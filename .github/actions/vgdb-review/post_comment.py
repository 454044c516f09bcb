"""Post a pull-request comment, or update the one posted before (found by its marker).

Runs on the CI runner's own python3 with the standard library only: it imports nothing of
vgdb (whose packages live in their own environment). GitHub REST API: list the issue's
comments (paged), PATCH the first whose body holds the marker, else POST a new one.

    GITHUB_TOKEN=... python3 post_comment.py --api https://api.github.com \
        --repository owner/name --pr 12 --file review.md [--output "$GITHUB_OUTPUT"]

Exit codes: 0 posted or updated, 1 the API refused (its status and message are printed),
2 bad arguments (no token, no marker in the file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

#: the first line of every `vgdb review` Markdown (api/review_cli.py's MARKER)
MARKER = "<!-- vgdb-review -->"
PER_PAGE = 100


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    token = os.environ.get("GITHUB_TOKEN", "")
    body = Path(args.file).read_text(encoding="utf-8")
    if not token:
        print("error: GITHUB_TOKEN is not set", file=sys.stderr)
        return 2
    if MARKER not in body:
        print(f"error: {args.file} does not hold the marker {MARKER}", file=sys.stderr)
        return 2
    api = Api(args.api.rstrip("/"), token)
    base = f"/repos/{args.repository}/issues"
    try:
        found = _find(api, f"{base}/{args.pr}/comments")
        if found is None:
            comment = api.call("POST", f"{base}/{args.pr}/comments", {"body": body})
            action = "posted"
        else:
            comment = api.call("PATCH", f"{base}/comments/{found}", {"body": body})
            action = "updated"
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{action} comment {comment['id']}: {comment.get('html_url', '')}")
    if args.output:
        with open(args.output, "a", encoding="utf-8") as out:
            out.write(f"comment-id={comment['id']}\n")
    return 0


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--api", required=True, help="REST API address")
    parser.add_argument("--repository", required=True, help="owner/name")
    parser.add_argument("--pr", required=True, type=int, help="pull request number")
    parser.add_argument("--file", required=True, help="the comment's Markdown")
    parser.add_argument("--output", default="", help="append comment-id=N here")
    return parser.parse_args(argv)


def _find(api: Api, path: str) -> int | None:
    """The id of the first comment holding the marker, over every page."""
    page = 1
    while True:
        comments = api.call("GET", f"{path}?per_page={PER_PAGE}&page={page}")
        for comment in comments:
            if MARKER in (comment.get("body") or ""):
                return int(comment["id"])
        if len(comments) < PER_PAGE:
            return None
        page += 1


class ApiError(Exception):
    pass


class Api:
    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, payload: dict | None = None) -> object:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=None if payload is None else json.dumps(payload).encode(),
            headers={"Authorization": f"Bearer {self.token}",
                     "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": "2022-11-28",
                     "Content-Type": "application/json", "User-Agent": "vgdb-review"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            raise ApiError(f"{method} {path}: HTTP {exc.code} {detail}") from exc
        except urllib.error.URLError as exc:
            raise ApiError(f"{method} {path}: {exc.reason}") from exc


if __name__ == "__main__":
    sys.exit(main())
