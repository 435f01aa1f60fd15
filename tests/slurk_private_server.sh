#!/usr/bin/env bash
# A private Slurk for outage tests (tests/test_attacks_outage.py): one gunicorn on 127.0.0.1:$PORT with its own
# sqlite database, started the way /work/slurk-server/start.sh starts the shared ones (ETags off).
#   tests/slurk_private_server.sh fresh     # stop it if running, new empty database, start
#   tests/slurk_private_server.sh stop      # kill -9 (like a crash); the database stays
#   tests/slurk_private_server.sh start     # start again on the same database
# Settings: SLURK_SERVER_BASE (/work/slurk-server: src/ and venv/), SLURK_PRIVATE_PORT (5061),
# SLURK_PRIVATE_DIR (/tmp/slurk-private-$PORT: database, pid file, log). It refuses the shared ports 5055/5056.
set -euo pipefail
BASE=${SLURK_SERVER_BASE:-/work/slurk-server}
PORT=${SLURK_PRIVATE_PORT:-5061}
DIR=${SLURK_PRIVATE_DIR:-/tmp/slurk-private-$PORT}
case "$PORT" in 5055|5056) echo "refusing to manage the shared Slurk on :$PORT" >&2; exit 2;; esac
mkdir -p "$DIR"
DB="$DIR/slurk.db"; PIDF="$DIR/gunicorn.pid"; LOG="$DIR/slurk.log"

stop() {
  if [ -f "$PIDF" ]; then
    pid=$(cat "$PIDF")
    if kill -0 "$pid" 2>/dev/null; then
      for child in $(pgrep -P "$pid" || true); do kill -9 "$child" 2>/dev/null || true; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$PIDF"
  fi
  for _ in $(seq 1 50); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/slurk/api/layouts" || true)" = 000 ] && return 0
    sleep 0.1
  done
  echo "slurk :$PORT still answers" >&2; return 1
}

start() {
  (
    cd "$BASE/src"
    unset SLURK_DEBUG SLURK_OPENVIDU_URL
    export FLASK_ENV=development SLURK_DATABASE_URI="sqlite:///$DB" SLURK_SECRET_KEY="private-test-$PORT"
    export SLURK_DISABLE_ETAG=True
    nohup "$BASE/venv/bin/gunicorn" -b "127.0.0.1:$PORT" -w 1 \
      -k geventwebsocket.gunicorn.workers.GeventWebSocketWorker --pid "$PIDF" --no-control-socket \
      'slurk:create_app()' >>"$LOG" 2>&1 </dev/null &
  )
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/slurk/api/layouts" || true)" = 200 ] && return 0
    sleep 0.1
  done
  echo "slurk :$PORT did not start; see $LOG" >&2; return 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  fresh) stop; rm -f "$DB"; start ;;
  *) echo "usage: $0 start|stop|restart|fresh" >&2; exit 2 ;;
esac
