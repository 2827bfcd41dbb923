"""Every page of the built book, as a reader's browser shows it (headless Chromium)."""

import json
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

import _support

ROOT = _support.ROOT
PAGES = _support.toc_pages()
CHAPTERS = [p for p in PAGES if re.match(r"book/\d\d_", p)]
LABS = [p for p in PAGES if p.startswith("book/labs/")]
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

# (page, test) pairs known to fail today, each fixed by another engineer's branch.
# strict=True: the fix turns them red (XPASS), and the mark has to go.
KNOWN_FAILURES = {}


def _params(pages, test):
    return list(_params_iter(pages, test))


def _params_iter(pages, test):
    for page in pages:
        reason = KNOWN_FAILURES.get((page, test))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(page, id=page, marks=marks)


@pytest.mark.parametrize("page", _params(PAGES, "math"))
def test_math_is_typeset_offline_without_errors(inspected, page):
    found = inspected(page)
    assert not found["raw_math"], f"raw TeX left after MathJax: {found['raw_math']}"
    assert not found["math_errors"], f"MathJax errors: {found['math_errors']}"
    assert "Undefined control sequence" not in found["visible_text"]
    if found["mathjax_src"]:  # pages with math load the vendored copy, never a CDN
        assert all(src.startswith("http://127.0.0.1") for src in found["mathjax_src"]), found["mathjax_src"]
        assert found["mathjax_version"], "MathJax did not start (offline copy missing?)"
    assert not [u for u in found["blocked"] if "mathjax" in u.lower()]


@pytest.mark.parametrize("page", _params(PAGES, "progress_bars"))
def test_no_progress_bars_or_dead_widgets_in_static_pages(inspected, page):
    found = inspected(page)
    assert found["widget_views"] == 0, f"{found['widget_views']} widget outputs (tqdm bars or sliders) in the page"
    assert not re.search(r"\d+it/s\]|it/s\]", found["visible_text"]), "a text progress bar in the page"


@pytest.mark.parametrize("page", CHAPTERS)
def test_prerendered_sliders_change_their_figure(context, book_server, page, book_html):
    browser_page = _support.open_page(context, book_server + page + ".html")
    switchers = browser_page.locator(".dpteach-frames")
    count = switchers.count()
    n_cells = len(re.findall(r"live_figure\(", (ROOT / f"{page}.ipynb").read_text(encoding="utf-8")))
    assert count >= 1 and count >= n_cells - 1, f"{count} frame switchers for {n_cells} live_figure calls"
    for i in range(count):
        switcher = switchers.nth(i)
        visible = switcher.locator(".dpteach-frames-images img:visible")
        assert visible.count() == 1
        before, label_before = visible.get_attribute("src"), switcher.locator("output").inner_text()
        assert visible.evaluate("img => img.complete && img.naturalWidth > 0")
        slider = switcher.locator("input[type=range]")
        at_end = slider.get_attribute("value") == slider.get_attribute("max")
        slider.focus()
        browser_page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")  # what a reader's keyboard or drag does
        visible = switcher.locator(".dpteach-frames-images img:visible")
        assert visible.count() == 1
        assert visible.get_attribute("src") != before, f"switcher {i}: the figure did not change"
        assert switcher.locator("output").inner_text() != label_before
    # Page weight: the frames are inline; keep a chapter page well under what a phone loads happily.
    size = (book_html / f"{page}.html").stat().st_size
    assert size < 4_000_000, f"{page}.html is {size / 1e6:.1f} MB"
    browser_page.close()


def _solution_lines(notebook):
    """Lines between the solution markers that appear nowhere else in the lab's source."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    inside, outside = set(), set()
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        within = False
        for line in source.splitlines():
            stripped = line.strip()
            if stripped.startswith(BEGIN):
                within = True
            elif stripped.startswith(END):
                within = False
            elif stripped and not stripped.startswith("#"):
                (inside if within else outside).add(stripped)
    # Short generic lines ("else:", "return x") prove nothing on their own.
    return sorted(line for line in inside - outside if len(line) >= 12)


def _leaks(text, notebook):
    return [line for line in _solution_lines(notebook) if line in text]


def _solution_source(page):
    """The solution notebook that the student page ``book/labs/<name>`` is generated from."""
    return ROOT / "book" / "labs" / "solutions" / f"{Path(page).name}.ipynb"


def test_solution_lines_are_found_in_the_solution_sources():
    # The leak tests below are only as good as this list: it must not be empty.
    for lab in LABS:
        assert len(_solution_lines(_solution_source(lab))) >= 3, lab


@pytest.mark.parametrize("page", _params(LABS, "lab_page"))
def test_lab_pages_show_no_solution_line(inspected, page):
    found = inspected(page)
    leaked = _leaks(found["all_text"], _solution_source(page))  # hidden (collapsed) text counts too
    assert BEGIN not in found["all_text"] and not leaked, f"solution lines in the page: {leaked[:5]}"


@pytest.mark.parametrize("page", _params(LABS, "lab_download"))
def test_lab_download_is_the_student_notebook(inspected, context, page):
    found = inspected(page)
    downloads = sorted({u for u in found["links"] if u.startswith("http://127.0.0.1") and u.endswith(".ipynb")})
    assert downloads, "no .ipynb download link on the lab page"
    for url in downloads:
        notebook = context.request.get(url).text()
        assert BEGIN not in notebook and not _leaks(notebook, _solution_source(page)), f"{url} has the solutions"


@pytest.mark.parametrize("page", _params(LABS, "lab_launch"))
def test_lab_launch_buttons_open_student_notebooks(inspected, page):
    found = inspected(page)
    targets = []
    for url in found["links"]:
        match = (re.search(r"mybinder\.org/v2/.*[?&]urlpath=(?:lab/tree|tree)/([^&#]+\.ipynb)", url)
                 or re.search(r"colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/(.+\.ipynb)", url))
        if match:
            targets.append(match.group(1))
    assert targets, "no Binder/Colab launch button on the lab page"
    for target in targets:
        path = ROOT / target
        assert path.exists(), f"launch target {target} is not in the repository"
        text = path.read_text(encoding="utf-8")
        assert BEGIN not in text and not _leaks(text, _solution_source(page)), f"{target} is the solution notebook"


def test_references_are_listed_by_author_and_year_without_numbers(inspected):
    found = inspected("book/references")
    assert "Dwork" in found["visible_text"]
    assert not re.search(r"^\s*\[\d+\]", found["visible_text"], re.MULTILINE), "numbered bibliography labels"


@pytest.mark.parametrize("page", _params(PAGES, "network"))
def test_pages_need_nothing_from_the_network(inspected, page):
    found = inspected(page)
    # Launch buttons and thebe may link outwards; nothing the page loads to display itself may.
    assets = [u for u in found["blocked"] if re.search(r"\.(js|css|woff2?)(\?|$)", u)]
    assert not assets, f"assets fetched from the network: {assets[:5]}"


@pytest.mark.parametrize("page", CHAPTERS)
def test_equations_are_numbered_per_page_as_in_a_notebook(book_html, page):
    # JupyterLab numbers a notebook's equations (1), (2), ...; the web page must say the same
    # number, or "Eq. (3)" on Binder would mean another equation than online (issue 8, item 2).
    html = (book_html / f"{page}.html").read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r'class="eqno">\((\d+)\)', html)]
    assert numbers == list(range(1, len(numbers) + 1)), f"equation numbers {numbers[:8]}..."


class _OutputText(HTMLParser):
    """Collects the text of every notebook output (``cell_output`` containers) and the classes used in a page."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.outputs, self.classes, self._depth = [], set(), 0

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        self.classes.update(classes)
        if tag in self.VOID:  # no end tag follows
            return
        if self._depth:
            self._depth += 1
        elif "cell_output" in classes:
            self._depth = 1
            self.outputs.append("")

    def handle_startendtag(self, tag, attrs):
        self.classes.update((dict(attrs).get("class") or "").split())

    def handle_endtag(self, tag):
        if self._depth and tag not in self.VOID:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.outputs[-1] += data


@pytest.mark.parametrize("page", PAGES)
def test_no_traceback_warning_or_builder_path_in_a_page(book_html, page):
    # Issue 18: chapter 7 shipped a traceback with the builder's paths. The build itself now fails on
    # such an output (_ext/dpteach_clean_outputs.py); this reads the HTML that was actually written.
    sys.path.insert(0, str(ROOT / "_ext"))
    from dpteach_clean_outputs import problems_in

    parser = _OutputText()
    parser.feed((book_html / f"{page}.html").read_text(encoding="utf-8"))
    paths = sorted({str(ROOT), str(ROOT.resolve()), sys.prefix, str(Path(sys.prefix).resolve()), str(Path.home())},
                   key=len, reverse=True)
    found = [problem for text in parser.outputs for problem in problems_in(text, set(), paths)]
    assert not found, found
    assert not {"traceback", "stderr"} & parser.classes, "an error or stderr output block in the page"


# Issue 21: the web book on a laptop and on a phone (D5-D7, D10), and its accessibility (D9).

def _source_text(page):
    source = next(ROOT.glob(page + ".*"))
    return source.read_text(encoding="utf-8")


def _layout_params(pages, test):
    return [pytest.param(page, viewport, id=f"{page}-{viewport}", marks=param.marks)
            for param in _params(pages, test) for page in param.values for viewport in _support.VIEWPORTS]


@pytest.mark.parametrize("page, viewport", _layout_params(PAGES, "clipped_math"))
def test_no_display_equation_is_cut_off(laid_out, page, viewport):
    # D5: 12 equations were cut at the right edge on a laptop, most of them on a phone. Wider
    # than the column is fine if the equation scrolls sideways; cut off or spilling is not.
    found = laid_out(page, viewport)
    assert not found["clipped_math"], f"equations wider than their column, not scrollable: {found['clipped_math'][:5]}"


@pytest.mark.parametrize("page, viewport", _layout_params(PAGES, "figure_text"))
def test_figure_text_is_legible_and_the_page_does_not_scroll_sideways(laid_out, page, viewport):
    # D6: on a 390-px phone the figures were shrunk 1.4-4.2x, their text to a few pixels. The
    # smallest text of each figure is its own record (data-min-text-px on pre-rendered frames) or
    # the book style's (dpteach.plotting.MIN_TEXT_PX, in a <meta> of every page).
    found = laid_out(page, viewport)
    assert found["has_style_text_px"], "no <meta name=dpteach-min-text-px> (the _ext/dpteach_web extension)"
    small = [f"{f['alt']!r}: {f['shown_text_px']:.1f} px ({f['natural']} px image shown {f['shown']:.0f} px wide)"
             for f in found["figures"] if not f["shown_text_px"] >= _support.LEGIBLE_PX - 0.05]
    assert not small, f"figure text under {_support.LEGIBLE_PX} CSS px: {small[:5]}"
    # A figure wider than the screen scrolls inside its own box; the page as a whole never does.
    # (Compared with the window we asked for: a phone browser zooms out to fit a too-wide page.)
    width = _support.VIEWPORTS[viewport]["width"]
    assert found["page_width"] <= width, f"the page is {found['page_width']} px wide in a {width} px window"


@pytest.mark.parametrize("page, viewport", _layout_params(PAGES, "scroll_cue"))
def test_a_figure_or_equation_that_scrolls_shows_that_it_does(laid_out, page, viewport):
    # N4: on a phone every figure (and 101 of 133 equations) was wider than the column and scrolled with
    # nothing on screen to say so; a two-panel figure lost the panel the text discusses.
    found = laid_out(page, viewport)
    assert not found["uncued_scroll"], f"{len(found['uncued_scroll'])} of {found['wide']} scrolling boxes " \
                                       f"without an edge shadow and a 'scroll →' line: {found['uncued_scroll'][:5]}"
    if viewport == "phone" and page in CHAPTERS:
        assert found["wide"] > 0, "no figure or equation wider than a phone: the scan found nothing to check"


@pytest.mark.parametrize("page", _params(PAGES, "phone_title"))
def test_the_title_takes_at_most_three_lines_on_a_phone(laid_out, page):
    # N12: chapter 6's title ran to 5 lines at 390 px and filled the top third of the first screen.
    found = laid_out(page, "phone")
    assert found["h1_text"], "no h1 on the page"
    assert found["h1_lines"] <= 3, f"{found['h1_text']!r}: {found['h1_lines']} lines at 390 px"


def test_the_scroll_shadow_follows_the_reader_to_the_end_of_a_figure(viewport_contexts, book_server):
    # The cue is not decoration: at the start the right edge is shadowed (more to the right), at the
    # end the left one (more to the left) and the right one is gone.
    page = viewport_contexts["phone"].new_page()
    page.goto(book_server + "book/01_dp_basics.html", wait_until="load")
    frame = page.locator(".dpteach-scroll-frame.dpteach-scrolls:not(.math)").first  # a figure
    frame.wait_for(state="attached", timeout=30_000)
    frame.scroll_into_view_if_needed()
    classes = lambda: frame.get_attribute("class").split()  # noqa: E731
    assert "dpteach-more-right" in classes() and "dpteach-more-left" not in classes()
    frame.evaluate("f => { const box = f.querySelector('.dpteach-frames-images, .dpteach-figure-scroll');"
                   " box.scrollLeft = box.scrollWidth; }")
    page.wait_for_function("f => !f.classList.contains('dpteach-more-right')", arg=frame.element_handle(),
                           timeout=30_000)
    assert "dpteach-more-left" in classes()
    page.close()


# A margin note is an admonition with ``:class: margin`` (it renders in JupyterLab too; issue 21, B3).
@pytest.mark.parametrize("page", _params([p for p in PAGES if ":class: margin" in _source_text(p)], "margins"))
def test_margin_notes_are_full_width_on_a_phone(laid_out, page):
    # D7: on a phone the margin notes were a 145 px column beside the text, squeezing it and
    # covering a table in chapter 4. There they belong in the flow, as wide as the text.
    found = laid_out(page, "phone")
    assert found["margins"], "no margin note found in the page"
    narrow = [m for m in found["margins"] if m["width"] < 0.9 * m["column"]]
    assert not narrow, narrow[:3]


@pytest.mark.parametrize("page, viewport", _layout_params(PAGES, "console"))
def test_no_console_error_or_failed_request(laid_out, page, viewport):
    # D10: every page logged "Identifier 'THEBE_JS_URL' has already been declared", the first
    # visit "Got invalid theme mode", and /favicon.ico was a 404.
    found = laid_out(page, viewport)
    assert not found["console_errors"], found["console_errors"][:5]


def test_no_live_code_button_that_needs_a_cdn(book_html):
    # D11: "Live Code" fetched Thebe from unpkg.com and hung offline; the book does not offer it.
    html = (book_html / "book" / "01_dp_basics.html").read_text(encoding="utf-8")
    assert "thebe-launch-button" not in html and "Live Code" not in html
    assert 'rel="icon"' in html, "no favicon link"
    assert html.count("THEBE_JS_URL") <= 1, "the thebe configuration script is included twice"


def test_every_figure_has_a_describing_alt_text(book_html):
    # D9: the static figures had their file name as alt text ("../_images/887472b3....png").
    bad = {}
    for page in PAGES:
        html = (book_html / f"{page}.html").read_text(encoding="utf-8")
        for alt in re.findall(r'<img [^>]*?alt="([^"]*)"', html) + [""] * len(re.findall(r"<img (?![^>]*alt=)", html)):
            if len(alt.strip()) < 8 or re.search(r"\.(png|svg|jpe?g)\b|_images/", alt):
                bad.setdefault(page, []).append(alt[:60])
    assert not bad, bad


@pytest.mark.parametrize("page", PAGES)
def test_ids_are_unique(book_html, page):
    # D9: sphinx-proof repeated each box's id on its title, and every proof was id="proof".
    ids = re.findall(r'<[a-zA-Z][^<>]*?\sid="([^"]+)"', (book_html / f"{page}.html").read_text(encoding="utf-8"))
    repeated = sorted(i for i, n in Counter(ids).items() if n > 1)
    assert not repeated, repeated[:10]


# axe-core rules whose violations come from the theme (pydata-sphinx-theme / sphinx-book-theme),
# identical on every page and not from the book's content; each with the reason it is accepted.
THEME_LEVEL_AXE = {
    "label-content-name-mismatch": "the theme's search and colour-mode buttons: aria-label differs from the "
                                   "visible keyboard hint (Ctrl+K) / icon",
    "region": "the theme's sidebar header (logo block) sits outside any landmark",
}


def _axe_script():
    axe = pytest.importorskip("axe_playwright_python", reason="pip install axe-playwright-python (bundles axe-core)")
    return (Path(axe.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", _params(PAGES, "axe"))
def test_accessibility_scan_finds_nothing_in_the_book_content(context, book_server, page):
    # D9: link contrast inside the tinted boxes, empty table headers, the bibliography's roles.
    script = _axe_script()
    browser_page = _support.open_page(context, book_server + page + ".html")
    browser_page.evaluate(_support.INSPECT_PAGE)  # MathJax done
    browser_page.add_script_tag(content=script)
    result = browser_page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    browser_page.close()
    found = {v["id"]: [n["target"] for n in v["nodes"]][:3] for v in result["violations"]
             if v["id"] not in THEME_LEVEL_AXE}
    assert not found, found
