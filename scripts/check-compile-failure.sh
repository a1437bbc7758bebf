#!/usr/bin/env bash
# Proves that calling endpointTask(with:) with an authenticated endpoint is a compile error.
#
# Builds the small package in Tests/CompileFailure (which depends on this package by path) and
# succeeds only if that build fails with the expected diagnostic and no other error.
# Usage: scripts/check-compile-failure.sh   (SCRATCH=/path overrides the build directory)
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# The build directory the three checks of a package that depends on this one share
# (check-migration-compile-errors.sh, check-consumer-package.sh): Endpoints is built once for them.
scratch="${SCRATCH:-$root/.build/dependents}"
expected="instance method 'endpointTask(with:environment:completion:)' requires the types 'HeaderKeyAuth' and 'NoAuth' be equivalent"

output="$(cd "$root/Tests/CompileFailure" && swift build --scratch-path "$scratch" 2>&1)"
status=$?

if [ "$status" -eq 0 ]; then
    echo "FAIL: Tests/CompileFailure compiled, but endpointTask with an authenticated endpoint must not." >&2
    exit 1
fi
if ! grep -qF "$expected" <<<"$output"; then
    echo "FAIL: the build failed without the expected diagnostic:" >&2
    echo "  expected: $expected" >&2
    grep -E "error:" <<<"$output" | sort -u >&2
    exit 1
fi
others="$(grep -E "^/.*error:" <<<"$output" | grep -vF "$expected" | sort -u)"
if [ -n "$others" ]; then
    echo "FAIL: the build failed for other reasons too:" >&2
    echo "$others" >&2
    exit 1
fi
echo "OK: endpointTask with an authenticated endpoint does not compile."
