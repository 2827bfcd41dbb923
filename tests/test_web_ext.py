"""_ext/dpteach_web.py: the page-level fixes of the web book (issue 21), on small inputs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "_ext"))
import dpteach_web  # noqa: E402


def test_repeated_ids_are_renamed_and_the_first_keeps_its_name():
    # sphinx-proof: a box's id on the div and on its title; every proof id="proof" (D9).
    html = ('<div class="proof" id="thm-a"><p class="admonition-title" id="thm-a">T</p></div>'
            '<div id="proof">1</div><div id="proof">2</div><div id="proof">3</div>'
            '<a href="#thm-a">Theorem</a><pre>id="proof" in code text is not a tag</pre>')
    fixed = dpteach_web.unique_ids(html)
    assert fixed.count('id="thm-a"') == 1 and 'id="thm-a-2"' in fixed
    assert fixed.index('id="thm-a"') < fixed.index('id="thm-a-2"')  # links still reach the box itself
    assert ['id="proof"' in fixed, 'id="proof-2"' in fixed, 'id="proof-3"' in fixed] == [True, True, True]
    assert 'href="#thm-a"' in fixed and '<pre>id="proof" in code' in fixed
    assert dpteach_web.unique_ids(fixed) == fixed  # nothing repeated any more


def test_bibliography_entries_become_list_items():
    html = '<div role="list" class="citation-list"><div class="citation" id="x" role="doc-biblioentry">A</div></div>'
    fixed = dpteach_web.bibliography_roles(html)
    assert "doc-biblioentry" not in fixed and 'role="listitem"' in fixed


def test_scripts_are_kept_once_in_order():
    class Script:
        def __init__(self, filename, **attributes):
            self.filename, self.attributes = filename, attributes
    config = Script(None, body='const THEBE_JS_URL = "x"')
    scripts = [Script("a.js"), config, Script("b.js", defer="defer"), Script(None, body='const THEBE_JS_URL = "x"'),
               Script("a.js"), Script("b.js")]
    kept = dpteach_web.unique_scripts(scripts)
    assert [(s.filename, s.attributes) for s in kept] == [("a.js", {}), (None, config.attributes),
                                                          ("b.js", {"defer": "defer"}), ("b.js", {})]


def test_repeated_head_scripts_are_dropped_from_a_written_page():
    thebe = '<script>const THEBE_JS_URL = "x"; const thebe_selector = ".cell"</script>'
    html = ("<html><head>\n    " + thebe + '\n    <script src="a.js"></script>\n    ' + thebe +
            '\n    <script src="a.js"></script>\n    <script defer src="a.js"></script>\n</head>'
            "<body>\n" + thebe + "\n" + thebe + "\n</body></html>")
    cleaned = dpteach_web.unique_head_scripts(html)
    head, body = cleaned.split("</head>")
    assert head.count("THEBE_JS_URL") == 1 and head.count('<script src="a.js">') == 1
    assert "<script defer src=\"a.js\">" in head      # differs: kept
    assert body.count("THEBE_JS_URL") == 2              # the body is left alone
    assert dpteach_web.unique_head_scripts("no head") == "no head"
