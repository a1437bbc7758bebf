#!/usr/bin/env bash
# Runs http-tests/cache-tests (../shared/cache-tests, see its ORIGIN.md) against HTTPCache: its
# origin server, endpoints-cache-proxy in front of it (every request through an EndpointClient
# with an HTTPCache), and its runner in browser mode (the 300 tests of a private cache). Prints
# `N passed, M failed`, the browsers' published counts beside it, and the tests that failed.
# CACHE_TESTS overrides the suite's path; OUT keeps the results JSON; ID runs one test.
set -euo pipefail
cd "$(dirname "$0")/.."

suite="${CACHE_TESTS:-}"
for candidate in ../shared/cache-tests ../../shared/cache-tests; do
    [ -n "$suite" ] || { [ -f "$candidate/run.mjs" ] && suite="$(cd "$candidate" && pwd)"; }
done
if [ -z "$suite" ]; then
    echo "cache-tests not found; set CACHE_TESTS" >&2
    exit 1
fi
command -v node >/dev/null || { echo "node not found (Debian: apt-get install nodejs)" >&2; exit 1; }

swift build --product endpoints-cache-proxy >/dev/null
proxy_bin="$(swift build --show-bin-path)/endpoints-cache-proxy"
work=$(mktemp -d)
out="${OUT:-$work/results.json}"
cleanup() {
    [ -n "${proxy_pid:-}" ] && kill "$proxy_pid" 2>/dev/null || true
    [ -n "${origin_pid:-}" ] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The origin on a free port: pick one, retry if taken.
for attempt in 1 2 3 4 5; do
    origin_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    npm_config_port=$origin_port npm_config_protocol=http npm_config_pidfile="$work/origin.pid" \
        node "$suite/test-engine/server/server.mjs" >"$work/origin.log" 2>&1 &
    origin_pid=$!
    for _ in $(seq 50); do
        if curl -s -o /dev/null "http://127.0.0.1:$origin_port/" 2>/dev/null; then break; fi
        kill -0 "$origin_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$origin_pid" 2>/dev/null && break
done
kill -0 "$origin_pid" 2>/dev/null || { echo "the origin did not start:" >&2; cat "$work/origin.log" >&2; exit 1; }

"$proxy_bin" --origin "http://127.0.0.1:$origin_port" >"$work/proxy.out" 2>"$work/proxy.err" &
proxy_pid=$!
for _ in $(seq 100); do
    grep -q "listening on" "$work/proxy.out" 2>/dev/null && break
    kill -0 "$proxy_pid" 2>/dev/null || break
    sleep 0.1
done
proxy_port=$(sed -n 's/^listening on //p' "$work/proxy.out")
[ -n "$proxy_port" ] || { echo "the proxy did not start:" >&2; cat "$work/proxy.err" >&2; exit 1; }

BASE="http://127.0.0.1:$proxy_port" MODE=browser OUT="$out" ID="${ID:-}" \
    node --no-warnings "$suite/run.mjs" >"$work/run.log" 2>&1 || true
kill -0 "$proxy_pid" 2>/dev/null || { echo "the proxy crashed:" >&2; tail -20 "$work/proxy.err" >&2; exit 1; }
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/run.log" | tail -1 || true)
[ -n "$summary" ] || { echo "the runner gave no summary:" >&2; tail -20 "$work/run.log" >&2; exit 1; }

python3 - "$suite" "$out" <<'PY'
import json, sys, subprocess
suite, out = sys.argv[1], sys.argv[2]
ours = json.load(open(out))
ids = list(ours)
def browser(name):
    return json.load(open(f"{suite}/results/{name}.json"))
browsers = {name: browser(name) for name in ("chrome", "firefox", "safari")}
passed = [i for i in ids if ours[i] is True]
print(f"{len(passed)} passed, {len(ids) - len(passed)} failed")
for name, results in browsers.items():
    count = sum(1 for i in ids if results.get(i) is True)
    print(f"  {name}: {count} of {len(ids)}")
allthree = [i for i in ids if all(r.get(i) is True for r in browsers.values())]
anyone = [i for i in ids if any(r.get(i) is True for r in browsers.values())]
lost = [i for i in allthree if ours[i] is not True]
print(f"  of the {len(allthree)} all three browsers pass: {len(allthree) - len(lost)} passed"
      + (f", failed: {' '.join(lost)}" if lost else ""))
print(f"  of the {len(anyone)} at least one browser passes: {sum(1 for i in anyone if ours[i] is True)} passed")
failed = [i for i in ids if ours[i] is not True]
print("failed: " + " ".join(failed))
PY
