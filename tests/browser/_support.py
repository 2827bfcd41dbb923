"""Shared helpers of the browser tests and `make screenshots`: build, serve, launch, list pages.

The browser is the system Chromium (``apt-get install chromium``), driven by
Playwright through ``executable_path``; ``playwright install`` is never needed.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
#: Set to an existing ``_build/html`` to skip the book build (for speed while developing).
REUSE_ENV = "DPTEACH_BOOK_HTML"
CHROMIUM_ENV = "DPTEACH_CHROMIUM"


def chromium_path():
    """The Chromium executable, or None when there is none."""
    candidates = [os.environ.get(CHROMIUM_ENV), "/usr/bin/chromium", shutil.which("chromium"),
                  shutil.which("chromium-browser")]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def toc_pages():
    """Every page of the book in _toc.yml order, as paths relative to the source root (no suffix)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return pages


def build_book(log=None):
    """Build the book exactly as `make book` does; return (html directory, seconds)."""
    env = dict(os.environ, DPTEACH_STATIC_FRAMES="1", TQDM_DISABLE="1")
    # `make browser` runs pytest with MPLBACKEND=Agg; a kernel that inherits it draws no inline figures,
    # so the pages would lose their static figures. `make book` does not set it: neither does this build.
    env.pop("MPLBACKEND", None)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    log = log or ROOT / "_build" / "browser_build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as out:
        status = subprocess.run([str(jupyter_book), "build", str(ROOT), "--builder", "html", "--all"],
                                env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    seconds = time.perf_counter() - start
    if status != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise RuntimeError(f"book build failed ({status}); end of {log}:\n{tail}")
    return ROOT / "_build" / "html", seconds


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory):
    """Serve ``directory`` on a free localhost port in a daemon thread; returns (base URL, server)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


def launch(playwright):
    """Headless system Chromium (root in CI needs --no-sandbox)."""
    return playwright.chromium.launch(executable_path=chromium_path(), headless=True,
                                      args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])


def local_only(context, blocked):
    """Abort every request that leaves this machine (none could succeed); note its URL in ``blocked``."""
    def route(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "http://localhost", "data:", "blob:", "about:")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()
    context.route("**/*", route)


# One evaluation per page collects everything the tests look at, after MathJax has typeset it.
INSPECT_PAGE = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const skip = new Set(['PRE', 'CODE', 'SCRIPT', 'STYLE', 'TEXTAREA', 'MJX-CONTAINER', 'MJX-ASSISTIVE-MML']);
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    let parent = node.parentElement, skipped = false;
    while (parent) {
      if (skip.has(parent.tagName) || parent.classList.contains('highlight')) { skipped = true; break; }
      parent = parent.parentElement;
    }
    // Raw TeX: $$, \( \), a "$" right before a command ("$\Pr"), or a command with a braced
    // argument ("\text{", "\mathcal{"): what an inline $...$ cut by a list item leaves (D2).
    if (!skipped && /\$\$|\\\(|\\\)|\$\\[A-Za-z]|\\[A-Za-z]+\{/.test(node.textContent)) {
      raw.push(node.textContent.trim().slice(0, 160));
    }
  }
  return {
    mathjax_version: (window.MathJax && MathJax.version) || null,
    mathjax_src: Array.from(document.scripts).map(s => s.src).filter(s => /mathjax/i.test(s)),
    typeset: document.querySelectorAll('mjx-container').length,
    math_errors: Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error]'))
                      .map(e => e.getAttribute('data-mjx-error') || e.textContent).slice(0, 10),
    raw_math: raw.slice(0, 20),
    visible_text: document.body.innerText,
    all_text: document.body.textContent,
    widget_views: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    switchers: document.querySelectorAll('.dpteach-frames').length,
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
  };
}
"""


#: Window sizes a reader uses: a laptop and a phone (CSS px; the phone's is an iPhone 12-15's).
VIEWPORTS = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
#: The smallest text a figure may show, in CSS px (issue 21, D6). _static/dpteach-figures.js keeps to it.
LEGIBLE_PX = 9

# What a reader sees of the layout: equations that do not fit, figure text size, stray TeX.
INSPECT_LAYOUT = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  await Promise.all(Array.from(document.images).map(img => img.complete ? null :
      new Promise(done => { img.addEventListener('load', done); img.addEventListener('error', done); })));
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const describe = el => (el.getAttribute('id') || el.closest('[id]')?.id || '') + ': ' +
                         (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  // A display equation is clipped when its typeset formula reaches past the right edge of a box
  // around it (up to the article) before any box that scrolls sideways: the rest is cut off or
  // spills over the margin. Inside a scrolling box the reader can reach all of it.
  const clipped = [];
  for (const math of document.querySelectorAll('mjx-container[display="true"]')) {
    const formula = math.querySelector('mjx-math') || math;
    const right = formula.getBoundingClientRect().right;
    for (let el = math; el && !el.matches('article, main, body'); el = el.parentElement) {
      if (scrolls(el)) break;
      const box = el.getBoundingClientRect();
      if (right > box.left + el.clientLeft + el.clientWidth + 1) {
        clipped.push(`${describe(math)} (ends ${Math.round(right - box.right)} px past its box)`);
        break;
      }
    }
  }
  const meta = document.querySelector('meta[name="dpteach-min-text-px"]');
  const styleTextPx = meta ? parseFloat(meta.content) : NaN;
  const figures = Array.from(document.querySelectorAll('.cell_output img, .dpteach-frames-images img'))
    .filter(img => img.getBoundingClientRect().width > 0)
    .map(img => {
      const textPx = parseFloat(img.dataset.minTextPx || styleTextPx);
      const shown = img.getBoundingClientRect().width;
      return {alt: img.getAttribute('alt'), natural: img.naturalWidth, shown: shown, text_px: textPx,
              // text height on screen = natural text height x displayed width / natural width
              shown_text_px: textPx * shown / img.naturalWidth};
    });
  // Margin notes and the width of the text column they belong to.
  const article = document.querySelector('article') || document.body;
  const margins = Array.from(document.querySelectorAll('aside.margin, .margin.sidebar, .margin.admonition'))
    .map(note => ({text: describe(note), width: note.getBoundingClientRect().width,
                   column: article.getBoundingClientRect().width}));
  // N4: every box that scrolls sideways (a figure, a display equation) shows that it does: its frame
  // (_static/dpteach-figures.js) casts a shadow on the edge with more beyond it, and a "scroll →"
  // line follows the frame. Measured after the script's scroll handlers and the shadow's fade ran.
  await new Promise(done => setTimeout(done, 400));
  const wide = Array.from(document.querySelectorAll(
      '.dpteach-frames-images, .dpteach-figure-scroll, div.math mjx-container[display="true"]'))
    // (on screen: not in a closed solution dropdown, which hides its body with visibility: hidden)
    .filter(el => el.getBoundingClientRect().width > 0 && el.checkVisibility({visibilityProperty: true}) &&
                  el.scrollWidth > el.clientWidth + 1);
  const uncued = wide.filter(el => {
    const frame = el.closest('.dpteach-scroll-frame');
    if (!frame) return true;
    const hint = frame.nextElementSibling;
    const hinted = !!hint && hint.classList.contains('dpteach-scroll-hint') && hint.offsetHeight > 0 &&
                   /scroll/.test(hint.innerText);
    const right = getComputedStyle(frame, '::after');
    const more = el.scrollLeft < el.scrollWidth - el.clientWidth - 1;
    return !hinted || (more && !(parseFloat(right.opacity) > 0.9 && right.backgroundImage.includes('gradient')));
  }).map(describe);
  // N12: the page title's lines, from its height and line height ("normal" is about 1.2 em).
  const h1 = document.querySelector('article h1');
  const h1Box = h1 ? h1.getBoundingClientRect() : null;
  const h1Line = h1 ? (parseFloat(getComputedStyle(h1).lineHeight) || 1.2 * parseFloat(getComputedStyle(h1).fontSize)) : 1;
  return {
    wide: wide.length,
    uncued_scroll: uncued,
    h1_lines: h1 ? Math.round(h1Box.height / h1Line) : 0,
    h1_text: h1 ? h1.textContent.trim() : '',
    margins: margins,
    clipped_math: clipped,
    figures: figures,
    page_width: document.documentElement.scrollWidth,
    window_width: window.innerWidth,
    has_style_text_px: !!meta,
  };
}
"""


def open_page(context, url):
    page = context.new_page()
    page.goto(url, wait_until="load")
    return page
