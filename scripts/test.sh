#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs httpbin from PyPI into a local virtual
# environment (.venv-httpbin) for the interop suite, and Authlib and Flask into another
# (.venv-authlib) for the OAuth suite, the `websockets` package, Starlette and uvicorn into a
# third (.venv-websockets) for the WebSocket peers, nginx with apt-get when missing for the TLS
# suites (scripts/nginx.sh: HTTPS with HTTP/2 and a throwaway CA), and Apache httpd the same way for
# the Digest authentication and proxy suites (scripts/apache.sh: mod_auth_digest, and forward
# proxies asking for Basic and Digest), starts them on loopback, runs
# `swift test`, stops them; when one of them cannot be installed or started, that check fails;
# checks that every path of the WebSocket peers behaves as documented;
# then checks that calling endpointTask with an authenticated endpoint does not compile,
# that Endpoints 0.4 spellings which changed meaning fail to compile with a message, and that every
# README and DocC sample compiles as printed and is covered by a test, and that the README's
# Package.swift builds as a consumer package against this checkout.
#
# The stress suite (thousands of requests at 64 in flight) runs on its own after the rest, so its
# load does not starve the other tests' servers and timers on a 2-core machine. So does the
# Authlib suite (OAuth against a real authorization server, with 1,000-request bursts into a Python
# server): beside it, on a loaded machine, idle-timeout and cancellation tests measured starvation.
# And the queued-cancellation suite, whose bound (100 cancels end within 1 s) is its behaviour.
# And the suites whose subject is an idle timeout (a stream's head and bytes must arrive within
# it): beside the rest of the suite on a 2-core machine with both cores busy, a stream's head
# missed its 8 s idle timeout in 2 of 2 runs (never alone, nor in the unloaded full run).
# DownloadProgressTests joins them: its server sends each chunk only after the client reported the
# ones before, and beside the whole suite under ThreadSanitizer the reports waited past the
# request's 60 s timeout (3 of 3 cases in one run; alone, 1.2 s).
#
# Every check runs even when an earlier one fails; a summary lists each check's result at the end
# and the script exits non-zero when any failed. Arguments are passed to `swift test` (then the
# suite runs in one invocation, as given).
set -uo pipefail
cd "$(dirname "$0")/.."

# Swift Testing starts every test at once (about 700) unless told otherwise; on two cores the
# cooperative pool then serves each test's continuations behind hundreds of others, and a loopback
# answer waited 8.5 s in an ordinary run (30 s under ThreadSanitizer, a minute on a slow CI day),
# past retry budgets and URLSession's 60 s timeout. Sixteen tests at a time took it to 14-60 ms,
# and the whole run was no slower (12.3 s against 17.7 s).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}"

idle_timeout_suites="StreamingTransportTests|TimeoutSemanticsTests|StreamingEndpointTests|DownloadProgressTests"

results=()
failed=0

# Silent unless the run stands still: then it says whether the machine or the test process did.
scripts/stall-watch.sh &
watcher=$!
trap 'kill "$watcher" 2>/dev/null' EXIT

check() {
    local name="$1"
    shift
    echo "== $name"
    if "$@"; then
        results+=("ok      $name")
    else
        results+=("FAILED  $name (exit $?)")
        failed=1
    fi
}

if [ $# -gt 0 ]; then
    check "swift test $*" scripts/httpbin.sh run scripts/nginx.sh run scripts/apache.sh run scripts/authlib.sh run \
        scripts/websockets.sh run swift test "$@"
else
    check "swift test (all but the stress, Authlib, queued-cancellation and idle-timeout suites)" \
        scripts/httpbin.sh run scripts/nginx.sh run scripts/apache.sh run scripts/websockets.sh run \
        swift test --skip EndpointsStressTests \
        --skip QueuedCancellationTests --skip "$idle_timeout_suites"
    check "swift test (the idle-timeout suites, alone)" swift test --skip-build --filter "$idle_timeout_suites"
    check "swift test (the Authlib suite, alone)" \
        scripts/authlib.sh run swift test --skip-build --filter OAuthAuthlibTests
    check "swift test (the queued-cancellation suite, alone)" swift test --skip-build --filter QueuedCancellationTests
    check "swift test (the stress suite)" swift test --skip-build --filter EndpointsStressTests
fi
check "the WebSocket peers' self-test" scripts/websockets.sh selftest
check "compile-failure check" scripts/check-compile-failure.sh
check "0.4 migration diagnostics" scripts/check-migration-compile-errors.sh
check "README and DocC samples" python3 scripts/check-readme-samples.py
check "the README's Package.swift as a consumer package" scripts/check-consumer-package.sh

echo "== summary"
printf '%s\n' "${results[@]}"
exit "$failed"
