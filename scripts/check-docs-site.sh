#!/usr/bin/env bash
# Checks the documentation as a site: serves the static DocC site that scripts/docs.sh writes
# (.build/docs-site, or the directory given) on loopback with python3 -m http.server on a port the
# kernel chooses, and loads the Endpoints landing page, each module's landing page and every
# article in headless Chromium (Debian's `chromium`, installed with apt-get when missing). DocC
# renders in the browser, so the check reads the rendered DOM: each page must show its title and
# not DocC's "page not found"; every link on a rendered page to /documentation/… must resolve (its
# page and its data file are served), and every article must be linked from the Endpoints landing
# page or from a module landing page it links to.
#
# SCREENSHOT=/path.png also saves a picture of the landing page.
set -euo pipefail
cd "$(dirname "$0")/.."
site="${1:-.build/docs-site}"
if [ ! -f "$site/index.html" ]; then
    echo "no site in $site: run scripts/docs.sh first"
    exit 1
fi

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "installing chromium with apt-get"
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
    browser=$(command -v chromium)
fi

log=$(mktemp)
python3 -u -m http.server --bind 127.0.0.1 --directory "$site" 0 >"$log" 2>&1 &
server=$!
profile=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$log" "$profile"' EXIT
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "the HTTP server did not start:"
    cat "$log"
    exit 1
fi
echo "serving $site on http://127.0.0.1:$port"

BROWSER="$browser" PROFILE="$profile" BASE="http://127.0.0.1:$port" SITE="$site" python3 - <<'EOF'
import html, os, pathlib, re, subprocess, sys, time, urllib.error, urllib.request

browser, profile, base, site = (os.environ[k] for k in ("BROWSER", "PROFILE", "BASE", "SITE"))
flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=20000"]
NOT_FOUND = re.compile(r"can[’']t be found|page not found|file not found", re.I)


def render(path):
    """The DOM of path after DocC's client-side rendering."""
    for attempt in range(2):  # a cold browser on a loaded machine can come back empty once
        result = subprocess.run(flags + ["--dump-dom", base + path], capture_output=True, text=True,
                                timeout=120)
        if "<h1" in result.stdout:
            return result.stdout
        time.sleep(1)
    return result.stdout


def served(path):
    try:
        with urllib.request.urlopen(base + path, timeout=30) as response:
            return response.status == 200
    except urllib.error.URLError:
        return False


def title_of(markdown):
    first = next(line for line in markdown.read_text().splitlines() if line.startswith("# "))
    return first[2:].strip().strip("`")


def text(dom):
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


pages = {}  # path → expected title
modules = sorted(p for p in pathlib.Path("Sources").glob("*/*.docc"))
for catalog in modules:
    module = catalog.stem
    for article in sorted(catalog.glob("*.md")):
        title = title_of(article)
        if title == module:
            pages[f"/documentation/{module.lower()}"] = module
        else:
            pages[f"/documentation/{module.lower()}/{article.stem.lower()}"] = title

failures = []
links = {}  # path → internal links on it
landing = "/documentation/endpoints"
for path, title in pages.items():
    started, before = time.monotonic(), len(failures)
    dom = render(path)
    shown = text(dom)
    if title not in shown:
        failures.append(f"{path}: the rendered page does not show its title {title!r}")
    if NOT_FOUND.search(shown):
        failures.append(f"{path}: DocC rendered 'page not found'")
    found = set()
    for href in re.findall(r'href="([^"#?]*)', dom):
        href = html.unescape(href).rstrip("/")
        if href.startswith(base):
            href = href[len(base):]
        if href.startswith("/documentation/"):
            found.add(href.lower())
    links[path] = found
    verdict = "ok " if len(failures) == before else "BAD"
    print(f"{verdict} {path} ({len(found)} links, {time.monotonic() - started:.1f} s)")

# Every internal link of every rendered page resolves: its page and the JSON DocC renders it from.
checked = set()
for path, found in links.items():
    for href in sorted(found - checked):
        checked.add(href)
        if not served(href + "/index.html") or not served("/data" + href + ".json"):
            failures.append(f"{path}: broken link {href}")

# Every article is reachable from the Endpoints landing page, directly or through a module landing
# page it links to.
reachable = set(links.get(landing, set())) | {landing}
for module_page in [p for p in pages if p.count("/") == 2 and p in reachable]:
    reachable |= links.get(module_page, set())
for path in pages:
    if path.lower() not in reachable:
        failures.append(f"{path}: not linked from the landing page {landing}")

print(f"{len(pages)} pages rendered, {len(checked)} distinct internal links checked")
if failures:
    print("\n".join(failures))
    sys.exit(1)

shot = os.environ.get("SCREENSHOT")
if shot:
    subprocess.run(flags + ["--hide-scrollbars", "--window-size=1280,1800", f"--screenshot={shot}",
                            base + landing], capture_output=True, timeout=120, check=True)
    print(f"screenshot of {landing}: {shot}")
EOF
