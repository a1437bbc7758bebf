#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs httpbin from PyPI into a local virtual
# environment (.venv-httpbin) for the interop suite, starts it on loopback, runs `swift test`,
# stops it; then checks that calling endpointTask with an authenticated endpoint does not compile,
# that Endpoints 0.4 spellings which changed meaning fail to compile with a message, and that every
# README and DocC sample compiles as printed and is covered by a test.
#
# Every check runs even when an earlier one fails; a summary lists each check's result at the end
# and the script exits non-zero when any failed. Arguments are passed to `swift test`.
set -uo pipefail
cd "$(dirname "$0")/.."

results=()
failed=0

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

check "swift test" scripts/httpbin.sh run swift test "$@"
check "compile-failure check" scripts/check-compile-failure.sh
check "0.4 migration diagnostics" scripts/check-migration-compile-errors.sh
check "README and DocC samples" python3 scripts/check-readme-samples.py

echo "== summary"
printf '%s\n' "${results[@]}"
exit "$failed"
