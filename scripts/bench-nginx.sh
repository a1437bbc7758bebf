#!/usr/bin/env bash
# scripts/bench-nginx.sh [endpoints-bench nginx arguments: --quick, --only=e2e|slow|download]
#
# Issue 38's benchmark: `endpoints-bench nginx` against nginx in a process of its own, so that the
# CPU the benchmark counts (getrusage, per round) is the client's alone. Installs nginx, its echo
# module and curl with apt-get when they are missing, starts nginx on a free loopback port with a
# configuration generated here (in a temporary folder, removed afterwards), builds and runs the
# benchmark in release, and stops nginx, also when the benchmark fails or is interrupted.
#
# What nginx serves (keep-alive, no access log, one worker, the benchmark's client on the other core):
#   /item          a 198-byte JSON (the endpoint the three contenders GET)
#   /slow/item     the same after 20 ms: echo_sleep, then an internal redirect to /item. This kernel
#                  has no netem (CONFIG_NET_SCH_NETEM is off), so the 20 ms backend is a server that
#                  takes 20 ms to answer, as the in-process `e2e` backend is, over real loopback TCP.
#   /download      1 GiB (a sparse file: the page cache serves it, no disk), /warm/download 4 MiB
#   /status        stub_status, whose accepted-connections count the benchmark reads between rounds
#
# ENDPOINTS_BENCH_NGINX_WORKERS sets nginx's worker processes (1 by default); ENDPOINTS_BENCH_RUNNER
# is put before the benchmark's command, e.g. "perf record -e cpu-clock -g -o /tmp/perf.data" or
# "valgrind --tool=callgrind" with ENDPOINTS_BENCH_ONLY=ours. Everything else the benchmark reads
# (ENDPOINTS_BENCH_ROUNDS, ENDPOINTS_BENCH_LEVELS, ENDPOINTS_BENCH_ONLY) passes through.
set -euo pipefail
cd "$(dirname "$0")/.."

install_missing() {
    local missing=()
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
    [ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || missing+=(libnginx-mod-http-echo)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "bench-nginx: installing ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

install_missing
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

dir=$(mktemp -d /tmp/endpoints-bench-nginx.XXXXXX)
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -QUIT "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# nginx's workers run as nobody: they read what is here.
chmod 755 "$dir"
truncate -s 1G "$dir/download"
mkdir -p "$dir/warm"
truncate -s 4M "$dir/warm/download"
chmod 644 "$dir/download" "$dir/warm/download"

# 198 bytes: the three fields `Item` decodes, and one it skips.
payload='{"id":42,"name":"Endpoints","tags":["swift","linux","http","libcurl","nginx"],"summary":"A typed endpoint, sent through the whole pipeline and decoded, against raw URLSession and the bare libcurl."}'

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start_nginx() {
    port=$(free_port)
    cat >"$dir/nginx.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes ${ENDPOINTS_BENCH_NGINX_WORKERS:-1};
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$port;
        location = /item { default_type application/json; return 200 '$payload'; }
        location = /slow/item { echo_sleep 0.02; echo_exec /item; }
        location = /download { default_type application/octet-stream; alias $dir/download; }
        location = /warm/download { default_type application/octet-stream; alias $dir/warm/download; }
        location = /status { stub_status; }
    }
}
EOF
    "$NGINX" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    for _ in $(seq 1 100); do
        if curl -sf -o /dev/null "http://127.0.0.1:$port/item"; then return 0; fi
        kill -0 "$nginx_pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

# The port was free when asked; another process may take it before nginx binds: try again.
for _ in 1 2 3; do
    if start_nginx; then break; fi
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=""
done
if [ -z "$nginx_pid" ]; then
    echo "bench-nginx: nginx did not start:" >&2
    cat "$dir/error.log" >&2 || true
    exit 1
fi
body=$(curl -sf "http://127.0.0.1:$port/item")
slow=$(curl -sf "http://127.0.0.1:$port/slow/item")
if [ "${#body}" -ne 198 ] || [ "$slow" != "$body" ]; then
    echo "bench-nginx: nginx serves ${#body} bytes at /item (198 expected) and '$slow' at /slow/item" >&2
    exit 1
fi
echo "bench-nginx: nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$port (pid $nginx_pid); load: $(cut -d' ' -f1-3 /proc/loadavg)"

swift build -c release --product endpoints-bench >&2
bin=$(swift build -c release --show-bin-path)
# shellcheck disable=SC2086 # the runner is words to split
${ENDPOINTS_BENCH_RUNNER:-} "$bin/endpoints-bench" nginx --url="http://127.0.0.1:$port" "$@"
echo "bench-nginx: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
