"""The Binder set-up (repo2docker reads runtime.txt, requirements.txt, the `postBuild` and `start` scripts)."""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_binder_start_script_sets_the_makefiles_blas_threads_and_runs_the_server():
    start = ROOT / "start"
    assert os.access(start, os.X_OK), "repo2docker runs `start` only when it is executable"
    makefile = re.search(r"^export OPENBLAS_NUM_THREADS \?= (\d+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    # Run it as Binder does, with the command as arguments: the command sees the variable.
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run([str(start), "sh", "-c", 'echo "$OPENBLAS_NUM_THREADS"; exit 7'],
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.stdout.strip() == makefile.group(1)
    assert result.returncode == 7  # exec "$@": the server's own exit status, not the script's


def test_binder_post_build_turns_off_jupyterlabs_news_toast_in_a_valid_override(tmp_path):
    """N10: the "official Jupyter news?" toast covered the notebook in every Binder session.

    repo2docker runs `postBuild` after installing requirements.txt; it must write an overrides.json
    that JupyterLab accepts (its own schema for the notification plugin) and keep other overrides.
    """
    import json
    import sys

    import jsonschema
    from jupyterlab.commands import get_app_dir

    post_build = ROOT / "postBuild"
    assert os.access(post_build, os.X_OK), "repo2docker runs postBuild only when it is executable"
    assert not (ROOT / "binder").exists(), "a binder/ folder would make repo2docker ignore the root's files"
    settings = tmp_path / "settings"
    settings.mkdir()
    (settings / "overrides.json").write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    env = dict(os.environ, JUPYTERLAB_DIR=str(tmp_path),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    subprocess.run([str(post_build)], env=env, check=True, capture_output=True, text=True, timeout=600)
    overrides = json.loads((settings / "overrides.json").read_text())
    notification = overrides.pop("@jupyterlab/apputils-extension:notification")
    assert notification == {"fetchNews": "false", "checkForUpdates": False}
    assert overrides == {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}
    schema = json.loads((Path(get_app_dir()) / "schemas" / "@jupyterlab" / "apputils-extension" /
                         "notification.json").read_text())
    jsonschema.validate(notification, schema)  # "false" as a string: a boolean false would be rejected
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"fetchNews": False}, schema)
