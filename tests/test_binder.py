"""The Binder set-up (repo2docker reads runtime.txt, requirements.txt and the `start` script)."""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_binder_start_script_sets_the_makefiles_blas_threads_and_runs_the_server():
    start = ROOT / "start"
    assert os.access(start, os.X_OK), "repo2docker runs `start` only when it is executable"
    makefile = re.search(r"^export OPENBLAS_NUM_THREADS \?= (\d+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    # Run it as Binder does, with the command as arguments: the command sees the variable.
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run([str(start), "sh", "-c", 'echo "$OPENBLAS_NUM_THREADS"; exit 7'],
                            env=env, capture_output=True, text=True, timeout=30)
    assert result.stdout.strip() == makefile.group(1)
    assert result.returncode == 7  # exec "$@": the server's own exit status, not the script's
