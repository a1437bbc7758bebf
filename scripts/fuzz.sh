#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each one for a fixed number of executions, keeping
# a small corpus per target in Fuzz/Corpus/<target>/ (minimised with -merge=1 after each run).
#
#   scripts/fuzz.sh                  every target, 1,000,000 executions each
#   scripts/fuzz.sh -runs=N          every target, N executions each
#   scripts/fuzz.sh FuzzCURL ...     only the targets named (with or without -runs=N)
#   scripts/fuzz.sh --replay         only replays the stored corpus (quick; .ci/run calls it)
#
# Each target checks a property (see the comment at the top of its main.swift) and aborts when it
# does not hold; libFuzzer then writes the input to Fuzz/Artifacts/ and this script fails. Replay
# one with `Fuzz/.build/release/<target> Fuzz/Artifacts/<file>` (`debug` after a --replay).
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"

# Every target, in Package.swift's order.
targets=(
    FuzzPathSegment
    FuzzQueryForm
    FuzzMultipart
    FuzzHeaders
    FuzzRetryAfter
    FuzzCURL
    FuzzSSE
    FuzzJSONLines
    FuzzResponse
    FuzzWebSocket
)

runs=1000000
replay=false
selected=()
for argument in "$@"; do
    case "$argument" in
        -runs=*) runs="${argument#-runs=}" ;;
        --replay) replay=true ;;
        -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
        *) selected+=("$argument") ;;
    esac
done
if [ ${#selected[@]} -gt 0 ]; then targets=("${selected[@]}"); fi

# The Swift runtime's backtracer reads memory ASan has not mapped; libFuzzer prints the crash itself.
export SWIFT_BACKTRACE=enable=no
# -sanitize=fuzzer for every module (the Endpoints module gets coverage instrumentation too),
# ASan to catch memory errors in the encoders' unsafe buffers, -parse-as-library because each
# target's main.swift only declares functions, -enable-testing for `@testable import Endpoints`.
# A replay only runs the stored inputs once: a debug build does that as well and skips the
# optimiser (48 s to build here); fuzzing proper wants the optimised build's executions per second.
configuration=release
if $replay; then configuration=debug; fi
echo "== building the fuzz targets ($configuration)"
swift build -c "$configuration" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
bin=$(swift build -c "$configuration" --show-bin-path)

mkdir -p Artifacts
status=0
for target in "${targets[@]}"; do
    corpus="Corpus/$target"
    mkdir -p "$corpus"
    if $replay; then
        echo "== $target: replaying $(ls "$corpus" | wc -l) inputs"
        files=("$corpus"/*)
        if [ -e "${files[0]}" ]; then
            "$bin/$target" -artifact_prefix=Artifacts/ "${files[@]}" 2>&1 | tail -1 || status=1
        fi
        continue
    fi
    echo "== $target: $runs executions"
    work=$(mktemp -d)
    start=$(date +%s)
    if "$bin/$target" -runs="$runs" -max_len=1024 -print_final_stats=1 -artifact_prefix=Artifacts/ \
        "$work" "$corpus" 2>"$work.log"; then
        grep -E "^Done|stat::number_of_executed_units|cov:" "$work.log" | tail -3
    else
        tail -30 "$work.log"
        status=1
    fi
    echo "   $(( $(date +%s) - start ))s"
    # Keep only the inputs that add coverage.
    merged=$(mktemp -d)
    "$bin/$target" -merge=1 "$merged" "$corpus" "$work" >/dev/null 2>&1 || true
    rm -rf "$corpus" "$work" "$work.log"
    mv "$merged" "$corpus"
done
exit $status
