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

# nginx itself, the ports and starting and stopping it: scripts/nginx.sh, shared with the tests.
source scripts/nginx.sh
nginx_install libnginx-mod-http-echo curl

dir=$(mktemp -d /tmp/endpoints-bench-nginx.XXXXXX)
cleanup() {
    nginx_stop
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
# Into the page cache before anything is measured: the first reader of a new sparse file fills
# the cache as it reads (1 GB of zeroed pages), which made whoever read first 2-4 times slower.
cat "$dir/download" "$dir/warm/download" >/dev/null

# 198 bytes: the three fields `Item` decodes, and one it skips.
payload='{"id":42,"name":"Endpoints","tags":["swift","linux","http","libcurl","nginx"],"summary":"A typed endpoint, sent through the whole pipeline and decoded, against raw URLSession and the bare libcurl."}'

write_config() {
    port=${NGINX_PORTS[0]}
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
    client_body_temp_path $dir/temp/body;
    proxy_temp_path $dir/temp/proxy;
    fastcgi_temp_path $dir/temp/fastcgi;
    uwsgi_temp_path $dir/temp/uwsgi;
    scgi_temp_path $dir/temp/scgi;
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
}

nginx_start "$dir" 1 write_config
port=${NGINX_PORTS[0]}
nginx_pid=$NGINX_PID
body=$(curl -sf "http://127.0.0.1:$port/item")
slow=$(curl -sf "http://127.0.0.1:$port/slow/item")
if [ "${#body}" -ne 198 ] || [ "$slow" != "$body" ]; then
    echo "bench-nginx: nginx serves ${#body} bytes at /item (198 expected) and '$slow' at /slow/item" >&2
    exit 1
fi
echo "bench-nginx: nginx $("$(nginx_binary)" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$port (pid $nginx_pid); load: $(cut -d' ' -f1-3 /proc/loadavg)"

swift build -c release --product endpoints-bench >&2
bin=$(swift build -c release --show-bin-path)
# shellcheck disable=SC2086 # the runner is words to split
${ENDPOINTS_BENCH_RUNNER:-} "$bin/endpoints-bench" nginx --url="http://127.0.0.1:$port" "$@"
echo "bench-nginx: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
