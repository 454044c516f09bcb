"""One in-process server for the API tests: the GraphQL app (and the explorer at ``/``) under
a real uvicorn server on a free loopback port, in a thread of the test process."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from api.graphql import Settings, create_app
from graphdb import Store


@contextmanager
def serving_app(store: Store, settings: Settings, *,
                owner_token: str | None = None) -> Iterator[str]:
    """The app over ``store`` served until the block ends; its base URL. ``owner_token``:
    the resident-CLI route's owner (``vgdb serve`` makes one; off by default)."""
    app = create_app(store, settings, owner_token=owner_token)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None,
                                           access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
