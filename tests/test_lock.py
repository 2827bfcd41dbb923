"""The lock files (issue 18): exact pins that satisfy the hand-edited ranges, and the extension check of tools/lock.py."""

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.lock import unsatisfied_shared_versions

ROOT = Path(__file__).resolve().parents[1]


def _lines(name):
    return [line.strip() for line in (ROOT / name).read_text().splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _pins(name):
    pins = {}
    for line in _lines(name):
        if line == "-e .":
            continue
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line), f"{name}: not an exact pin: {line!r}"
        package, version = line.split("==")
        pins[canonicalize_name(package)] = version
    return pins


def test_requirements_txt_is_an_exact_lock_that_installs_dpteach():
    assert _lines("requirements.txt")[0] == "-e ."  # Binder installs dpteach from it
    assert len(_pins("requirements.txt")) > 100  # transitive packages too, not only the ~25 direct ones


@pytest.mark.parametrize("ranges, lock", [("requirements.in", "requirements.txt"),
                                          ("requirements-test.in", "requirements-test.txt")])
def test_every_range_is_pinned_inside_it(ranges, lock):
    pins = {**_pins("requirements.txt"), **_pins(lock)}
    for line in _lines(ranges):
        if line == "-e .":
            continue
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} of {ranges} is not pinned in {lock}"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"{lock} pins {name}=={pins[name]}, outside {ranges}'s {requirement.specifier}"


def test_test_extras_do_not_repin_the_book():
    assert not set(_pins("requirements.txt")) & set(_pins("requirements-test.txt"))


def _fake_venv(tmp_path, lab_versions, entries):
    static = tmp_path / "share" / "jupyter" / "lab" / "static"
    static.mkdir(parents=True)
    static.joinpath("package.json").write_text('{"resolutions": {%s}}' % ", ".join(
        f'"{package}": "~{version}"' for package, version in lab_versions.items()))
    for extension, text in entries.items():
        folder = tmp_path / "share" / "jupyter" / "labextensions" / extension / "static"
        folder.mkdir(parents=True)
        folder.joinpath("remoteEntry.abc.js").write_text(text)
    return tmp_path


def test_extension_check_flags_the_widgets_manager_that_reader_review_b8_saw(tmp_path):
    # jupyterlab_widgets 3.0.17's manager (string form) asks for ^4.6.2 against JupyterLab 4.5.11: flagged.
    # 3.0.16's (webpack's array form of a caret range, [1,4,4,6]) asks for ^4.4.6: fine.
    venv = _fake_venv(tmp_path, {"@jupyterlab/notebook": "4.5.11", "@jupyterlab/services": "7.5.11"}, {
        "new-manager": '"@jupyterlab/notebook",import:null,requiredVersion:"^4.6.2",strictVersion:!1',
        "old-manager": 'loadSingletonVersion("default", "@jupyterlab/notebook", false, [1,4,4,6])),'
                       'w("default","@jupyterlab/services",!1,[1,7,4,1])',
    })
    assert unsatisfied_shared_versions(venv) == [("new-manager", "@jupyterlab/notebook", "^4.6.2", "~4.5.11")]
