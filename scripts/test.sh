#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs httpbin from PyPI into a local virtual
# environment for the interop suite, starts it on loopback, runs `swift test`, stops it, and checks
# that calling endpointTask with an authenticated endpoint fails to compile.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/with-httpbin.sh swift test "$@"
scripts/check-compile-failure.sh
