#!/usr/bin/env bash
# The one implementation behind scripts/httpbin.sh and scripts/authlib.sh: a Python test server
# from PyPI, installed into a virtual environment in the package root (ignored by git, so nothing
# is installed system-wide), started on a free loopback port in a session of its own, stopped as
# a group. Sourced, not run: the caller sets
#
#   SERVICE       a name for messages and files (httpbin, authlib)
#   VENV          the virtual environment's directory
#   PACKAGES      pip requirement specifiers, an array
#   IMPORTS       a Python import statement that succeeds once they are installed
#   HEALTH_PATH   a path that answers once the server is up (/get, /health)
#   URL_VARIABLE  the environment variable `run` passes the URL in (HTTPBIN_URL, AUTHLIB_URL)
#   SERVER_COMMAND the server's command line, an array; `--port N` is appended
#
# and then calls `service_main "$@"`: start | stop | run COMMAND [ARGS...].

PIDFILE="$VENV/$SERVICE.pid"
URLFILE="$VENV/$SERVICE.url"
LOGFILE="$VENV/$SERVICE.log"
PYTHON="${PYTHON:-python3}"

log() { echo "$SERVICE.sh: $*" >&2; }

install() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "$IMPORTS" 2>/dev/null; then
        return
    fi
    log "installing ${PACKAGES[*]} into $VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}" >&2
    "$VENV/bin/python" -c "$IMPORTS"
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
urllib.request.urlopen(sys.argv[1] + sys.argv[2], timeout=1).read()' "$1" "$HEALTH_PATH" 2>/dev/null
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
        setsid "${SERVER_COMMAND[@]}" --port "$port" >"$LOGFILE" 2>&1 </dev/null &
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
        log "$SERVICE did not answer on port $port (attempt $attempt); log follows"
        cat "$LOGFILE" >&2 || true
        stop
    done
    log "could not start $SERVICE"
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

service_main() {
    case "${1:-}" in
        start)
            start
            ;;
        stop)
            stop
            ;;
        run)
            shift
            [ "$#" -gt 0 ] || { log "usage: $SERVICE.sh run COMMAND [ARGS...]"; exit 2; }
            # Stop it afterwards only if this call started it.
            if ! running; then trap stop EXIT; fi
            local url status=0
            url="$(start)"
            env "$URL_VARIABLE=$url" "$@" || status=$?
            exit "$status"
            ;;
        *)
            echo "usage: $SERVICE.sh start | stop | run COMMAND [ARGS...]" >&2
            exit 2
            ;;
    esac
}
