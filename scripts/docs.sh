#!/usr/bin/env bash
# Builds the DocC catalogs of Endpoints, EndpointsMocking and EndpointsTestServer with the
# toolchain's docc and fails on any warning (a broken symbol link, a missing article), then merges
# the three archives into one static site (docc merge; the archives are transformed for static
# hosting, docc's default) for serving at a web server's root: .build/docs-site, or the second
# argument. scripts/check-docs-site.sh loads it in a headless browser.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
site="${2:-.build/docs-site}"
mkdir -p "$out"
# The package's own build directory: after `swift build` (or scripts/test.sh) the graphs cost
# seconds; a scratch path of its own built the library and executables once more (over a minute).
# Extraction fails for the synthesized test-discovery module; only the library graphs matter.
swift package dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
graphs="$(dirname "$(swift build --show-bin-path)")/symbolgraph"
scratch=.build/docs-graphs
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
[ $status -eq 0 ] || exit $status
rm -rf "$site"
docc merge "$out"/Endpoints.doccarchive "$out"/EndpointsMocking.doccarchive "$out"/EndpointsTestServer.doccarchive \
    --synthesized-landing-page-name Endpoints --output-path "$site" >/dev/null
echo "docc: the documentation site → $site (the landing page is documentation/endpoints)"
