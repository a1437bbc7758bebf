#!/usr/bin/env bash
# scripts/bench-websockets.sh [endpoints-bench websocket arguments: --quick]
#
# Issue 39's benchmark: `endpoints-bench websocket`, echo round trips on loopback at 1 and 100
# connections, Endpoints' client against the `websockets` package's own client
# (scripts/websocket-peers/bench_client.py, which the benchmark starts and asks for one round at a
# time), both against the package's echo server. Starts the WebSocket peers with
# scripts/websockets.sh (installing the `websockets` package into .venv-websockets/ if needed),
# builds and runs the benchmark in release, and stops the peers, also when the benchmark fails.
# ENDPOINTS_BENCH_ROUNDS sets the rounds (12 by default, 6 with --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

swift build -c release --product endpoints-bench >&2
bin=$(swift build -c release --show-bin-path)
echo "bench-websockets: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
scripts/websockets.sh run "$bin/endpoints-bench" websocket \
    --python="$root/.venv-websockets/bin/python" \
    --client="$root/scripts/websocket-peers/bench_client.py" "$@" || status=$?
echo "bench-websockets: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
