#!/usr/bin/env bash
# Runs the WebSocket peers of the test suite (scripts/websocket-peers/) on loopback: the
# `websockets` package as an echo server over ws:// and wss://, a Starlette app under uvicorn with
# bearer auth on the handshake, and a raw-socket server that breaks RFC 6455 one way per path;
# beside them, in the same process and with the same certificate, an HTTP/2 server (the `h2`
# package) that breaks RFC 9113 one way per path (http2_server.py).
#
#   scripts/websockets.sh start          install if needed, start them, print their variables
#   scripts/websockets.sh stop           stop the peers this script started
#   scripts/websockets.sh run CMD ARGS…  start, run CMD with the variables below set, stop, exit
#                                        with CMD's status
#   scripts/websockets.sh selftest       start, check every path of every peer with the
#                                        `websockets` package's client, stop
#
#   e.g.  scripts/websockets.sh run swift test --filter WebSocket
#
# The variables (base URLs; each peer's paths are listed at the top of its Python file):
#   ENDPOINTS_WS_ECHO_URL      ws://127.0.0.1:PORT    the `websockets` echo server (echo_server.py)
#   ENDPOINTS_WSS_ECHO_URL     wss://127.0.0.1:PORT   the same over TLS
#   ENDPOINTS_WS_HOSTILE_URL   ws://127.0.0.1:PORT    a raw-socket server, one RFC 6455 violation per path
#                                                     (hostile_server.py)
#   ENDPOINTS_WS_AUTH_URL      http://127.0.0.1:PORT  Starlette under uvicorn, bearer auth on the handshake
#                                                     (/login, /refresh, /test/revoke, /test/drop,
#                                                     /ws/echo, /ws/ticker: auth_app.py)
#   ENDPOINTS_H2_URL           https://127.0.0.1:PORT HTTP/2 over TLS (ALPN h2, else a small HTTP/1.1
#                                                     responder), one RFC 9113 violation per path
#                                                     (http2_server.py)
#   ENDPOINTS_WS_CA_FILE       PATH                   the throwaway CA (PEM) that signed the wss://
#                                                     servers' certificate (for 127.0.0.1 and localhost)
#
# The packages are installed into a virtual environment in the package root, .venv-websockets/
# (ignored by git), so nothing is installed system-wide; the pid, the variables, the log and the
# certificates (made anew with openssl at every start, valid for two days) are kept there too.
# Every server listens on a port the kernel chose; the script waits for the line the peers
# write once all of them listen, not for a time.
# Environment: PYTHON (default python3), WEBSOCKETS_VERSION (default 17.4), STARLETTE_VERSION
# (default 1.10.0), UVICORN_VERSION (default 0.54.0), H2_VERSION (default 4.4.1).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICE=websockets
VENV="$ROOT/.venv-websockets"
PACKAGES=(
    "websockets==${WEBSOCKETS_VERSION:-17.4}"
    "starlette==${STARLETTE_VERSION:-1.10.0}"
    "uvicorn==${UVICORN_VERSION:-0.54.0}"
    "h2==${H2_VERSION:-4.4.1}"
)
IMPORTS='import websockets, starlette, uvicorn, h2'
PEERS="$ROOT/scripts/websocket-peers"
ENVFILE="$VENV/$SERVICE.env"
TLS="$VENV/tls"

# install, running, stop and log come from the httpbin/authlib implementation; this script has
# its own start (several servers, ports chosen by the kernel, more than one variable).
source "$ROOT/scripts/python-service.sh"

# A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost, as
# scripts/nginx.sh makes them (EC P-256, two days).
make_certificates() {
    rm -rf "$TLS"
    mkdir -p "$TLS"
    cat >"$TLS/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[v3_ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
authorityKeyIdentifier = keyid
EOF
    local cnf="$TLS/openssl.cnf"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$TLS/ca.key" 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$TLS/server.key" 2>/dev/null
    openssl req -config "$cnf" -x509 -new -key "$TLS/ca.key" -subj "/CN=Endpoints WebSocket throwaway CA" \
        -extensions v3_ca -days 2 -out "$TLS/ca.pem"
    openssl req -config "$cnf" -new -key "$TLS/server.key" -subj "/CN=127.0.0.1" -out "$TLS/server.csr"
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" \
        -set_serial "0x$(openssl rand -hex 8)" -days 2 -extfile "$cnf" -extensions v3_server \
        -out "$TLS/server.pem" 2>/dev/null
}

start() {
    if running; then
        cat "$ENVFILE"
        return
    fi
    install
    make_certificates
    local line
    # peers.py writes one line of JSON once every server listens, and nothing more; its stdout
    # ends (and `read` returns) at once if it dies first. The 60 s are a bound, not a wait.
    rm -f "$PIDFILE"
    exec 3< <(exec "$VENV/bin/python" "$PEERS/peers.py" --pidfile "$PIDFILE" \
        --cert "$TLS/server.pem" --key "$TLS/server.key" --ca "$TLS/ca.pem" 2>"$LOGFILE" </dev/null)
    if ! IFS= read -r -t 60 -u 3 line; then
        exec 3<&-
        log "the peers did not start; log follows"
        cat "$LOGFILE" >&2 || true
        stop
        return 1
    fi
    exec 3<&-
    "$VENV/bin/python" -c 'import json, sys
with open(sys.argv[2], "w") as variables:
    variables.writelines(f"{name}={value}\n" for name, value in json.loads(sys.argv[1]).items())' "$line" "$ENVFILE"
    cat "$ENVFILE"
}

# Starts the peers for `run` and `selftest`, and stops them at exit only if this call started
# them; their variables are then in VARIABLES, NAME=VALUE each.
prepare() {
    if ! running; then trap stop EXIT; fi
    start >/dev/null
    mapfile -t VARIABLES <"$ENVFILE"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    run)
        shift
        [ "$#" -gt 0 ] || { log "usage: $SERVICE.sh run COMMAND [ARGS...]"; exit 2; }
        prepare
        status=0
        env "${VARIABLES[@]}" "$@" || status=$?
        exit "$status"
        ;;
    selftest)
        prepare
        status=0
        env "${VARIABLES[@]}" "$VENV/bin/python" "$PEERS/selftest.py" || status=$?
        exit "$status"
        ;;
    *)
        echo "usage: $SERVICE.sh start | stop | run COMMAND [ARGS...] | selftest" >&2
        exit 2
        ;;
esac
