"""Browser tests of the built book (and of every chapter and lab in one JupyterLab session), on the system Chromium.

Skipped, with the reason, when Playwright or Chromium is missing. The book is
built once per session exactly as `make book` builds it; set
DPTEACH_BOOK_HTML=_build/html to test an existing build instead.
"""

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download)")
if _support.chromium_path() is None:
    pytest.skip("no Chromium: apt-get install -y chromium", allow_module_level=True)


@pytest.fixture(scope="session")
def book_html():
    reuse = os.environ.get(_support.REUSE_ENV)
    if reuse:
        html = Path(reuse).resolve()
        if not (html / "index.html").exists():
            pytest.fail(f"{_support.REUSE_ENV}={reuse} has no index.html")
        return html
    html, seconds = _support.build_book()
    print(f"\nbook build: {seconds:.0f} s")
    return html


@pytest.fixture(scope="session")
def book_server(book_html):
    base, server = _support.serve(book_html)
    yield base
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    with playwright_api.sync_playwright() as playwright:
        browser = _support.launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def blocked_requests():
    return []


@pytest.fixture(scope="session")
def context(browser, blocked_requests):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    _support.local_only(context, blocked_requests)
    yield context
    context.close()


@pytest.fixture(scope="session")
def viewport_contexts(browser, blocked_requests):
    """name -> a browser context at that window size (_support.VIEWPORTS); the phone one as a phone."""
    contexts = {}
    for name, size in _support.VIEWPORTS.items():
        phone = name == "phone"
        contexts[name] = browser.new_context(viewport=size, is_mobile=phone, has_touch=phone,
                                             device_scale_factor=3 if phone else 1)
        _support.local_only(contexts[name], blocked_requests)
    yield contexts
    for context in contexts.values():
        context.close()


@pytest.fixture(scope="session")
def laid_out(viewport_contexts, book_server):
    """(page name, viewport name) -> INSPECT_LAYOUT's findings plus the console errors and failed requests."""
    cache = {}

    def inspect(name, viewport):
        if (name, viewport) not in cache:
            page = viewport_contexts[viewport].new_page()
            errors = []
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
            page.on("response", lambda response: errors.append(f"{response.status} {response.url}")
                    if response.status >= 400 else None)
            page.goto(book_server + name + ".html", wait_until="load")
            found = page.evaluate(_support.INSPECT_LAYOUT)
            found["console_errors"] = errors
            cache[name, viewport] = found
            page.close()
        return cache[name, viewport]

    return inspect


@pytest.fixture(scope="session")
def inspected(context, book_server, blocked_requests):
    """page name -> what INSPECT_PAGE found on it (each page is loaded once per session)."""
    cache = {}

    def inspect(name):
        if name not in cache:
            already_blocked = len(blocked_requests)
            start = time.perf_counter()
            page = _support.open_page(context, book_server + name + ".html")
            cache[name] = page.evaluate(_support.INSPECT_PAGE)
            cache[name]["seconds"] = time.perf_counter() - start
            page.close()
            cache[name]["blocked"] = blocked_requests[already_blocked:]
        return cache[name]

    return inspect
