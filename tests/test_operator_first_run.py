"""Operator rough edge (issue 18): the first `./run_bot.sh` prints what a new user needs, not setuptools' editable-
install banner; a failing install still shows pip's whole output. run_bot.sh runs in a copy of the project with a
stand-in Python (PYTHON=...) whose `-m venv` makes a stand-in .venv/bin/python that prints pip's noise."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BANNER = "!! ******** Please avoid running setup.py directly (editable install banner) ********"

FAKE_VENV_PYTHON = f"""#!/bin/sh
case "$*" in
  *"pip install"*"-e"*) echo "{BANNER}" >&2; echo "Successfully installed slurk-bot-suite" ;
                        [ -n "$FAIL_INSTALL" ] && {{ echo "ERROR: could not build wheels" >&2; exit 1; }}; exit 0 ;;
  *"pip install"*) exit 0 ;;
  *"-c"*) exit 0 ;;
  *"-m bots"*) echo "GAME RAN"; exit 0 ;;
esac
exit 0
"""

FAKE_PYTHON = f"""#!/bin/sh
# python3 -m venv DIR
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'EOF'
{FAKE_VENV_PYTHON}EOF
chmod +x "$3/bin/python"
"""


def run_first_time(tmp_path: Path, fail: bool = False) -> subprocess.CompletedProcess:
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "run_bot.sh", proj / "run_bot.sh")
    shutil.copy(ROOT / "setup.cfg", proj / "setup.cfg")
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PYTHON": str(fake)}
    if fail:
        env["FAIL_INSTALL"] = "1"
    return subprocess.run(["bash", str(proj / "run_bot.sh"), "travel"], cwd=proj, env=env, capture_output=True,
                          text=True, timeout=60)


def test_first_run_shows_no_setuptools_banner(tmp_path):
    r = run_first_time(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "GAME RAN" in r.stdout
    assert BANNER not in r.stdout + r.stderr
    assert [line for line in r.stderr.splitlines() if line] == [
        "run_bot.sh: creating .venv", "run_bot.sh: installing the suite and its test extra into .venv"]


def test_a_failing_install_shows_everything(tmp_path):
    r = run_first_time(tmp_path, fail=True)
    assert r.returncode == 1
    assert "ERROR: could not build wheels" in r.stderr and BANNER in r.stderr
    assert "install failed" in r.stderr and "GAME RAN" not in r.stdout
