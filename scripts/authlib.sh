#!/usr/bin/env bash
# Runs an Authlib OAuth 2.0 authorization server (scripts/authlib_server.py, Authlib and
# Flask from PyPI) on loopback for the OAuth suite.
#
#   scripts/authlib.sh start          install if needed, start on a free port, print its URL
#   scripts/authlib.sh stop           stop the server this script started
#   scripts/authlib.sh run CMD ARGS…  start, run CMD with AUTHLIB_URL set, stop, exit with CMD's status
#
#   e.g.  scripts/authlib.sh run swift test --filter OAuth
#
# Authlib and Flask are installed into a virtual environment in the package root, .venv-authlib/ (ignored
# by git), so nothing is installed system-wide. The server's pid and URL are kept there too.
# Environment: PYTHON (default python3), AUTHLIB_VERSION (default 1.9.10), FLASK_VERSION (default 3.1.3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICE=authlib
VENV="$ROOT/.venv-authlib"
PACKAGES=("authlib==${AUTHLIB_VERSION:-1.9.10}" "flask==${FLASK_VERSION:-3.1.3}")
IMPORTS='import authlib, flask'
HEALTH_PATH=/health
URL_VARIABLE=AUTHLIB_URL
SERVER_COMMAND=("$VENV/bin/python" "$ROOT/scripts/authlib_server.py")

source "$ROOT/scripts/python-service.sh"
service_main "$@"
