"""The web book's search page shows snippets without raw TeX (reader review D12).

Sphinx's search builds each snippet from the page's HTML source, where maths is still TeX
(``\\((\\varepsilon, \\delta)\\)``); _static/dpteach-search.js turns it into plain text. This runs a
search in Chromium and reads the snippets, as a reader sees them.
"""

import re

import pytest

#: Words that occur next to inline maths on many pages ("(ε, δ)-DP", "Let M be ...").
QUERIES = ["privacy", "mechanism", "sensitivity"]
#: TeX left in a snippet: a math delimiter or a command such as \varepsilon, \frac.
RAW_TEX = re.compile(r"\\[()\[\]]|\\[A-Za-z]{2,}")


@pytest.mark.parametrize("query", QUERIES)
def test_search_snippets_show_no_raw_tex(context, book_server, query):
    page = context.new_page()
    page.goto(f"{book_server}search.html?q={query}", wait_until="domcontentloaded")
    # Results arrive one by one; the search is done when the summary line says how many it found.
    page.wait_for_function(
        "() => { const s = document.querySelector('#search-results .search-summary, .search-summary');"
        " return s && /found|did not match/i.test(s.textContent); }", timeout=120_000)
    # Snippets are filled in after the summary: wait for the first (a busy machine may take seconds), then give the
    # last ones a moment; the assertion below never depends on how long that took, only on what was filled in.
    page.wait_for_function("() => document.querySelector('#search-results .context, ul.search li p.context')",
                           timeout=60_000)
    page.wait_for_timeout(1000)
    snippets = page.evaluate("() => Array.from(document.querySelectorAll('#search-results .context, "
                             "ul.search li p.context')).map(p => p.textContent)")
    page.close()
    assert snippets, f"no snippet for {query!r}"
    raw = [s.strip()[:120] for s in snippets if RAW_TEX.search(s)]
    assert not raw, f"{len(raw)} of {len(snippets)} snippets show raw TeX, e.g. {raw[:3]}"
    if query == "sensitivity":  # Definition 1.5's snippet keeps its maths, as symbols: "Δ_1 = max_D ~ D' ‖f(D) ..."
        assert any("Δ" in s and "‖" in s for s in snippets), snippets[:5]


def test_the_search_fix_is_on_the_search_page(book_html):
    html = (book_html / "search.html").read_text(encoding="utf-8")
    assert "dpteach-search.js" in html
