#!/usr/bin/env bash
# One entry point: sets up .venv on first use (and again when setup.cfg changes), then runs `python -m bots`.
#   ./run_bot.sh travel            a local game between embedded agents (no Slurk, no API key)
#   ./run_bot.sh test [pytest args] the test suite
#   ./run_bot.sh --help            everything else
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.installed-from-setup.cfg

if [ ! -x "$VENV/bin/python" ]; then
  echo "run_bot.sh: creating $VENV" >&2
  "$PY" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || ! cmp -s setup.cfg "$STAMP"; then
  echo "run_bot.sh: installing the suite and its test extra into $VENV" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  # pip's output goes to a log; a new user sees it only when the install fails (setuptools' editable-install
  # banner and deprecation notices are noise on success).
  LOG=$VENV/install.log
  if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]' >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "run_bot.sh: install failed (full output above and in $LOG)" >&2
    exit 1
  fi
  "$VENV/bin/python" -c "import bots, tasks, socketio, pulp" \
    || { cat "$LOG" >&2; echo "run_bot.sh: install failed (see $LOG)" >&2; exit 1; }
  cp setup.cfg "$STAMP"
fi

if [ "${1:-}" = "test" ]; then
  shift
  # Browser tests need Debian's chromium; install it when we can (root with apt), otherwise they skip with a note.
  if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "run_bot.sh: installing chromium for the browser tests" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
      || echo "run_bot.sh: could not install chromium; browser tests will be skipped" >&2
  fi
  exec "$VENV/bin/python" -m pytest "$@"
fi
exec "$VENV/bin/python" -m bots "$@"
