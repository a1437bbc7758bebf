#!/usr/bin/env bash
# Runs an Authlib OAuth 2.0 authorization server (scripts/authlib_server.py, Authlib and
# Flask from PyPI) on loopback for the OAuth suite.
#
#   scripts/authlib.sh start          install if needed, start on a free port, print its URL
#   scripts/authlib.sh stop           stop the server this script started
#   scripts/authlib.sh run CMD ARGS…  start, run CMD with AUTHLIB_URL set, stop, exit with CMD's status
#
#   e.g.  scripts/authlib.sh run swift test --filter OAuth
#
# Authlib and Flask are installed into a virtual environment in the package root, .venv-authlib/ (ignored
# by git), so nothing is installed system-wide. The server's pid and URL are kept there too.
# Environment: PYTHON (default python3), AUTHLIB_VERSION (default 1.9.10), FLASK_VERSION (default 3.1.3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-authlib"
PIDFILE="$VENV/authlib.pid"
URLFILE="$VENV/authlib.url"
LOGFILE="$VENV/authlib.log"
PYTHON="${PYTHON:-python3}"
AUTHLIB_VERSION="${AUTHLIB_VERSION:-1.9.10}"
FLASK_VERSION="${FLASK_VERSION:-3.1.3}"

log() { echo "authlib.sh: $*" >&2; }

install() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import authlib, flask' 2>/dev/null; then
        return
    fi
    log "installing Authlib $AUTHLIB_VERSION and Flask $FLASK_VERSION into $VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "authlib==$AUTHLIB_VERSION" "flask==$FLASK_VERSION" >&2
    "$VENV/bin/python" -c 'import authlib, flask'
}

running() {
    [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

free_port() {
    "$VENV/bin/python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

answers() {
    "$VENV/bin/python" -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/health", timeout=1).read()' "$1" 2>/dev/null
}

start() {
    if running; then
        cat "$URLFILE"
        return
    fi
    install
    local attempt port url pid
    for attempt in 1 2 3; do
        port="$(free_port)"
        url="http://127.0.0.1:$port"
        # A new session, so `stop` can end the server and anything it spawned as one group.
        setsid "$VENV/bin/python" "$ROOT/scripts/authlib_server.py" --port "$port" >"$LOGFILE" 2>&1 </dev/null &
        pid=$!
        echo "$pid" >"$PIDFILE"
        echo "$url" >"$URLFILE"
        for _ in $(seq 1 100); do
            if answers "$url"; then
                echo "$url"
                return
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        log "the Authlib server did not answer on port $port (attempt $attempt); log follows"
        cat "$LOGFILE" >&2 || true
        stop
    done
    log "could not start the Authlib server"
    return 1
}

stop() {
    if running; then
        local pid
        pid="$(cat "$PIDFILE")"
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -f "$PIDFILE" "$URLFILE"
}

case "${1:-}" in
    start)
        start
        ;;
    stop)
        stop
        ;;
    run)
        shift
        [ "$#" -gt 0 ] || { log "usage: $0 run COMMAND [ARGS...]"; exit 2; }
        # Stop it afterwards only if this call started it.
        if ! running; then trap stop EXIT; fi
        url="$(start)"
        status=0
        AUTHLIB_URL="$url" "$@" || status=$?
        exit "$status"
        ;;
    *)
        echo "usage: $0 start | stop | run COMMAND [ARGS...]" >&2
        exit 2
        ;;
esac
