"""A slider stops only where its figure was computed (reader review D3 in chapter 9, N2 in chapters 3 and 4).

A draw function that looks its slider value up among a few precomputed runs ("nearest precomputed ε")
shows the run of another value whenever the slider sits between two of them: the readout, the alt text
and the title then disagree with the picture, and on Binder the figure does not move at all. Such a
figure needs a slider over exactly the computed values (``choice_slider``). This test reads every
chapter's code and finds draw functions that snap a parameter (``min(values, key=...)`` on it, or a
``nearest_...(parameter)`` helper), then checks the ``live_figure`` call drives that parameter with a
``choice_slider``.
"""

import ast
import json
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
CHAPTERS = sorted(p.name for p in BOOK.glob("*.ipynb"))


def _code(name):
    cells = json.loads((BOOK / name).read_text(encoding="utf-8"))["cells"]
    sources = ("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
               for c in cells if c["cell_type"] == "code")
    # IPython magics and shell lines are not Python: blank them out, keep the line numbers.
    return "\n".join("\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in s.splitlines())
                     for s in sources)


def _snapped_parameters(function):
    """The parameters of ``function`` that it replaces by the nearest of a list of values."""
    params = {a.arg for a in function.args.args}
    snapped = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        nearest = node.func.id.startswith("nearest")
        by_key = node.func.id in {"min", "max"} and any(k.arg == "key" for k in node.keywords)
        if nearest or by_key:
            snapped |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in params}
    return snapped


def unsnapped_sliders(source):
    """[(draw function, parameter, slider call)] for every snapped parameter a live_figure drives continuously."""
    tree = ast.parse(source)
    snapping = {f.name: _snapped_parameters(f) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    wrong = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "live_figure"
                and call.args and isinstance(call.args[0], ast.Name)):
            continue
        for keyword in call.keywords:
            if keyword.arg in snapping.get(call.args[0].id, ()):
                slider = keyword.value
                if not (isinstance(slider, ast.Call) and isinstance(slider.func, ast.Name)
                        and slider.func.id == "choice_slider"):
                    wrong.append((call.args[0].id, keyword.arg, ast.unparse(slider)))
    return wrong


def test_the_check_finds_a_figure_that_snaps_a_continuous_slider():
    # Chapter 4's tracing figure before the fix: 0.5 showed ε = 0.3, and 2 showed ε = 3.
    old = ("def draw_auc_ratio(fig, epsilon):\n"
           "    eps = min(t1_epsilons, key=lambda e: abs(math.log(e / epsilon)))  # nearest precomputed ε\n"
           "    ax = fig.subplots()\n"
           "auc_ratio_figure = live_figure(draw_auc_ratio, epsilon=epsilon_slider(1.0, min=0.3, max=3.0))\n")
    assert unsnapped_sliders(old) == [("draw_auc_ratio", "epsilon", "epsilon_slider(1.0, min=0.3, max=3.0)")]
    helper = ("def draw(fig, epsilon, noise):\n    b = nearest_epsilon(epsilon)\n"
              "f = live_figure(draw, epsilon=epsilon_slider(1.0), noise=choice_slider(['a', 'b']))\n")
    assert unsnapped_sliders(helper) == [("draw", "epsilon", "epsilon_slider(1.0)")]
    fixed = ("def draw(fig, epsilon, noise):\n    b = nearest_epsilon(epsilon)\n"
             "f = live_figure(draw, epsilon=choice_slider([0.5, 1.0]), noise=choice_slider(['a', 'b']))\n")
    assert unsnapped_sliders(fixed) == []


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_snapping_figure_has_a_slider_over_its_computed_values(name):
    assert unsnapped_sliders(_code(name)) == []
