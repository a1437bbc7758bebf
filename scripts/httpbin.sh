#!/usr/bin/env bash
# Runs httpbin (a third-party HTTP test server, from PyPI) on loopback for the interop tests.
#
#   scripts/httpbin.sh start          install if needed, start on a free port, print its URL
#   scripts/httpbin.sh stop           stop the server this script started
#   scripts/httpbin.sh run CMD ARGS…  start, run CMD with HTTPBIN_URL set, stop, exit with CMD's status
#
#   e.g.  scripts/httpbin.sh run swift test --filter Interop
#
# httpbin is installed into a virtual environment in the package root, .venv-httpbin/ (ignored by
# git), so nothing is installed system-wide. The server's pid and URL are kept there too.
# Environment: PYTHON (default python3), HTTPBIN_VERSION (default 0.10.4).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICE=httpbin
VENV="$ROOT/.venv-httpbin"
PACKAGES=("httpbin==${HTTPBIN_VERSION:-0.10.4}")
IMPORTS='import httpbin.core'
HEALTH_PATH=/get
URL_VARIABLE=HTTPBIN_URL
SERVER_COMMAND=("$VENV/bin/python" -m httpbin.core --host 127.0.0.1)

source "$ROOT/scripts/python-service.sh"
service_main "$@"
