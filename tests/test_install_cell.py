"""Every notebook starts with the Colab install cell (tools/install_cell.py; issue 21).

Colab has no dpteach: the first cell installs it from the repository _config.yml names,
and does nothing where dpteach is importable (Binder, JupyterLab, CI, the book build).
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools/ is a folder of the repository, not part of the installed package

from tools import install_cell  # noqa: E402


def _first_cell(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    source = cells[0]["source"]
    return cells[0], "".join(source) if isinstance(source, list) else source


def test_every_notebook_starts_with_the_current_install_cell():
    paths = install_cell.notebooks()
    assert len(paths) >= 28  # 10 chapters, 9 labs, 9 solutions: an empty scan must not pass
    assert install_cell.stale() == [], "run: python -m tools.install_cell --write, then make labs"


@pytest.mark.parametrize("path", install_cell.notebooks(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_install_cell_installs_from_the_repository_config_names_and_is_hidden(path):
    # Read _config.yml here on its own, so a generator that ignored it would fail.
    repository = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    cell, source = _first_cell(path)
    urls = re.findall(r"git\+(\S+?)@([\w./-]+)\"", source)
    assert urls == [(repository["url"], repository["branch"])]
    assert "remove-cell" in cell["metadata"]["tags"]  # the web book does not show it ...
    assert cell["metadata"]["jupyter"]["source_hidden"] and cell["metadata"]["cellView"] == "form"  # ... nor JupyterLab/Colab its code
    assert cell["cell_type"] == "code" and not cell.get("outputs")


def _run_cell(monkeypatch, dpteach_found):
    calls = []
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (real_find_spec(name, *a) if dpteach_found else None)
                        if name == "dpteach" else real_find_spec(name, *a))
    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: calls.append((args, kwargs)))
    exec(install_cell.cell_source(), {})
    return calls


def test_install_cell_does_nothing_where_dpteach_is_installed(monkeypatch):
    assert _run_cell(monkeypatch, dpteach_found=True) == []


def test_install_cell_pip_installs_dpteach_where_it_is_missing(monkeypatch):
    calls = _run_cell(monkeypatch, dpteach_found=False)
    assert len(calls) == 1
    (command,), kwargs = calls[0]
    assert command[:4] == [sys.executable, "-m", "pip", "install"] and kwargs == {"check": True}
    assert command[-1] == install_cell.requirement() and command[-1].startswith("dpteach @ git+https://")


def test_a_fork_changes_one_setting(tmp_path):
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://github.com/someone/fork/\n  branch: dev\n")
    assert install_cell.requirement(tmp_path) == "dpteach @ git+https://github.com/someone/fork@dev"
    (tmp_path / "_config.yml").write_text("title: x\n")
    with pytest.raises(ValueError, match="repository.url"):
        install_cell.requirement(tmp_path)
