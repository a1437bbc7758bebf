#!/usr/bin/env bash
# Builds the DocC catalogs of Endpoints, EndpointsMocking and EndpointsTestServer with the
# toolchain's docc and fails on any warning (a broken symbol link, a missing article).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
mkdir -p "$out"
scratch=.build/docs-build
# Extraction fails for the synthesized test-discovery module; only the library graphs matter.
swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
graphs=$(find "$scratch" -type d -name symbolgraph | head -n 1)
status=0
for module in Endpoints EndpointsMocking EndpointsTestServer; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || continue
    moduleGraphs="$scratch/graphs-$module"
    rm -rf "$moduleGraphs" && mkdir -p "$moduleGraphs"
    cp "$graphs/$module.symbols.json" "$moduleGraphs/"
    cp "$graphs/$module"@*.symbols.json "$moduleGraphs/" 2>/dev/null || true
    log=$(docc convert "$catalog" --fallback-display-name "$module" --fallback-bundle-identifier "dev.endpoints.$module" \
        --additional-symbol-graph-dir "$moduleGraphs" --output-path "$out/$module.doccarchive" 2>&1) || status=1
    if [ $status -ne 0 ] || echo "$log" | grep -E "warning:|error:" >/dev/null; then
        echo "$log"
        status=1
    fi
    echo "docc: $module → $out/$module.doccarchive"
done
exit $status
