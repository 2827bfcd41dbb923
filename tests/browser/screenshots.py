"""Screenshot every page of a built book: `make screenshots` (writes _build/screenshots/, not committed).

    python tests/browser/screenshots.py [HTML_DIR] [OUT_DIR]

Full-page PNGs at a 1280-px-wide window, where the content column is ~700-800 px,
taken after MathJax has typeset the page; one per page of _toc.yml.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402


def main(argv):
    html = Path(argv[0] if argv else _support.ROOT / "_build" / "html").resolve()
    out = Path(argv[1] if len(argv) > 1 else _support.ROOT / "_build" / "screenshots").resolve()
    if _support.chromium_path() is None:
        print("no Chromium: apt-get install -y chromium")
        return 1
    from playwright.sync_api import sync_playwright
    out.mkdir(parents=True, exist_ok=True)
    base, server = _support.serve(html)
    blocked = []
    with sync_playwright() as playwright:
        browser = _support.launch(playwright)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        _support.local_only(context, blocked)
        for name in _support.toc_pages():
            page = _support.open_page(context, base + name + ".html")
            page.evaluate(_support.INSPECT_PAGE)  # waits for MathJax
            target = out / (name.replace("/", "__") + ".png")
            page.screenshot(path=str(target), full_page=True)
            print(target)
            page.close()
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
