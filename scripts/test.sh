#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs httpbin from PyPI into a local virtual
# environment (.venv-httpbin) for the interop suite, starts it on loopback, runs `swift test`,
# stops it; then checks that calling endpointTask with an authenticated endpoint does not compile,
# that Endpoints 0.4 spellings which changed meaning fail to compile with a message,
# and that every README and DocC sample is compiled by a test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/httpbin.sh run swift test "$@"
scripts/check-compile-failure.sh
scripts/check-migration-compile-errors.sh
python3 scripts/check-readme-samples.py
