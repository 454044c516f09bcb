"""Fixtures shared by the API tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.api.explorer_tab import CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A headless Debian Chromium for the tests of one module. Not one for the session:
    Playwright's sync API keeps an asyncio loop running in this thread while it is open,
    which breaks later tests that call asyncio.run()."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()
