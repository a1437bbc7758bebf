#!/usr/bin/env bash
# Proves that Endpoints 0.4 spellings which cannot keep their meaning fail to compile, each with a
# message that names the new spelling (MigratingFrom04.md).
#
# Builds Tests/CompileFailure04 (which depends on this package by path) and succeeds only if every
# expected diagnostic appears. Usage: scripts/check-migration-compile-errors.sh (SCRATCH overrides
# the build directory).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# Shared with check-compile-failure.sh and check-consumer-package.sh: Endpoints is built once.
scratch="${SCRATCH:-$root/.build/dependents}"
expected=(
    "'environment' is unavailable: The environment is per request"
    "'PathRepresentable' has been renamed to 'ParameterRepresentable'"
    "requires that 'InvalidEndpoint.ParameterComponents.MyEnum' conform to 'ParameterRepresentable'"
    "type 'LegacyAuth' does not conform to protocol 'AuthenticationMethod'"
    "candidate throws, but protocol does not allow it"
    "'AuthenticatedSession' is unavailable: Authentication is part of every request"
    "is unavailable: The server is the endpoint's \`typealias Server\`"
    "'refreshNotSupported' is unavailable"
    "'EnvironmentType' has been renamed to 'ServerDefinition'"
    "'GenericServer' is unavailable: Declare your own ServerDefinition"
)

output="$(cd "$root/Tests/CompileFailure04" && swift build --scratch-path "$scratch" 2>&1)"
if [ $? -eq 0 ]; then
    echo "FAIL: Tests/CompileFailure04 compiled, but its 0.4 spellings must not." >&2
    exit 1
fi
failed=0
for message in "${expected[@]}"; do
    if ! grep -qF -- "$message" <<<"$output"; then
        echo "FAIL: missing diagnostic: $message" >&2
        failed=1
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "The build's errors were:" >&2
    grep -E "error:" <<<"$output" | sort -u >&2
    exit 1
fi
echo "OK: ${#expected[@]} Endpoints 0.4 spellings fail to compile with a message."
