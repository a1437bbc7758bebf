#!/usr/bin/env python3
"""Checks every Swift sample in README.md and the DocC articles (Sources/*/*.docc/*.md).

Two kinds of ```swift block, told apart by a marker on the line before the fence:

  * A sample (no marker) is compiled exactly as printed. The samples of one document are joined,
    in the order they appear, into the `main.swift` of one executable target of a throwaway
    package (generated in .build/doc-samples, depending on this package by path and on all its
    library products). So a document reads top to bottom: a later sample may use what an earlier
    one declared, and the document's first sample imports what it uses (`import Endpoints` is
    enough on every platform). Top-level statements are allowed, as in any `main.swift`. All the
    documents are built by one `swift build` (incremental after the first run); a compiler error
    is reported at the document's line.

  * A fragment, marked with an HTML comment that neither GitHub nor DocC renders:

        <!-- fragment -->
        ```swift
        var baseUrls: [Environments: URL] { ... }
        ```

    is code that cannot compile on its own: it elides (`...`), leans on values the text only
    describes, redeclares a type to show one more member, or needs a platform this machine does not
    have (Combine). Each meaningful line of a fragment must appear, in order, in one Swift file
    under Tests/ (compared without whitespace; comments, `...` lines and imports are skipped), so a
    renamed type, method or parameter still fails the check instead of silently rotting.
    (A fence info string such as ```swift fragment is not used because DocC takes the whole
    string as the language and loses the highlighting.)

Blocks that show a package manifest (`dependencies: [`, `testTarget(`, `.package(`) are skipped.

Usage: scripts/check-readme-samples.py [--no-compile]   (SCRATCH=/path moves the throwaway package)
"""
import hashlib
import os
import shutil
import pathlib
import re
import subprocess
import sys
import textwrap

root = pathlib.Path(__file__).resolve().parent.parent
docs = [root / "README.md"] + sorted(root.glob("Sources/*/*.docc/*.md"))
package = pathlib.Path(os.environ.get("SCRATCH", root / ".build" / "doc-samples"))

SKIP_BLOCKS = ("dependencies: [", "testTarget(", ".package(")
FRAGMENT_MARKER = "<!-- fragment -->"
PRODUCTS = ["Endpoints", "EndpointsMocking", "EndpointsMockingTesting", "EndpointsTestServer"]
FENCE = re.compile(r"^([ \t]*)```swift[ \t]*\n(.*?)^[ \t]*```", re.S | re.M)


def meaningful(line: str) -> bool:
    s = line.strip()
    if not s or s.startswith("//") or s.startswith("import ") or "..." in s or s in ("{", "}", ")", "]", "})", "}"):
        return False
    return True


def strip_comment(line: str) -> str:
    # drop trailing // comments that are not inside a string literal
    out, in_string = [], False
    i = 0
    while i < len(line):
        c = line[i]
        if c == '"':
            in_string = not in_string
        if not in_string and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out).strip()


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def found_in_order(lines, haystack):
    """The first sample line not found after the previous one, or None when all are.

    Whitespace is ignored, so a test may wrap a long sample line the way the formatter wants.
    """
    position = 0
    for line in lines:
        index = haystack.find(squeeze(line), position)
        if index < 0:
            return line
        position = index + len(squeeze(line))
    return None


def blocks(doc):
    """Yields (first line number of the code, code, is_fragment) for each ```swift block of doc."""
    text = doc.read_text()
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").splitlines()
        previous = next((line.strip() for line in reversed(before) if line.strip()), "")
        start = text.count("\n", 0, match.start(2)) + 1
        yield start, textwrap.dedent(match.group(2)), previous == FRAGMENT_MARKER


def target_name(doc):
    name = re.sub(r"[^A-Za-z0-9]", "", doc.stem)
    module = doc.parent.stem if doc.suffix == ".md" and doc.parent.suffix == ".docc" else ""
    return f"Sample{module}{name}"


tests = {path: squeeze("".join(strip_comment(l) for l in path.read_text().splitlines()))
         for path in root.glob("Tests/**/*.swift")}

failures = 0
compiled = {}  # target name → (doc, [(generated line, doc line)], source)
fragment_count = 0
for doc in docs:
    source, line_map = [], []
    for start, code, is_fragment in blocks(doc):
        if any(marker in code for marker in SKIP_BLOCKS):
            continue
        if is_fragment:
            fragment_count += 1
            lines = [strip_comment(l) for l in code.splitlines() if meaningful(l)]
            lines = [l for l in lines if l]
            if not lines:
                continue
            best = None
            for haystack in tests.values():
                missing = found_in_order(lines, haystack)
                if missing is None:
                    break
                best = missing if best is None or lines.index(missing) > lines.index(best) else best
            else:
                failures += 1
                print(f"{doc.relative_to(root)}:{start}: fragment not found in any test under Tests/; "
                      f"first unmatched line: {best!r}")
            continue
        source.append(f"// {doc.relative_to(root)}:{start}")
        for offset, line in enumerate(code.splitlines()):
            source.append(line)
            line_map.append((len(source), start + offset))
    if line_map:
        compiled[target_name(doc)] = (doc, line_map, "\n".join(source) + "\n")


def generate():
    products = ", ".join(f'.product(name: "{p}", package: "Endpoints")' for p in PRODUCTS)
    targets = ",\n".join(
        f'        .executableTarget(name: "{name}", dependencies: [{products}], path: "Sources/{name}")'
        for name in sorted(compiled))
    manifest = f"""// swift-tools-version: 6.0
// Generated by scripts/check-readme-samples.py: the documentation's samples, compiled as printed.
import PackageDescription

let package = Package(
    name: "DocSamples",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    dependencies: [.package(name: "Endpoints", path: "{root}")],
    targets: [
{targets}
    ],
    swiftLanguageModes: [.v6]
)
"""
    package.mkdir(parents=True, exist_ok=True)
    sources = package / "Sources"
    for old in sources.glob("*/main.swift") if sources.exists() else []:
        if old.parent.name not in compiled:
            old.unlink()
            old.parent.rmdir()
    write_if_changed(package / "Package.swift", manifest)
    for name, (_, _, source) in compiled.items():
        (sources / name).mkdir(parents=True, exist_ok=True)
        write_if_changed(sources / name / "main.swift", source)


def write_if_changed(path, text):
    # Unchanged files keep their timestamps, so the build stays incremental.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def doc_location(target, generated_line):
    doc, line_map, _ = compiled[target]
    best = None
    for generated, original in line_map:
        if generated <= generated_line:
            best = original
    return f"{doc.relative_to(root)}:{best or '?'}"


def forget_stale_build():
    """Removes the throwaway package's build when this checkout's source files (Swift, C and
    headers alike) were added, removed or renamed since it was made: SwiftPM's incremental build of
    a path dependency does not notice a new file, and then reports errors that a clean build does
    not have (a C file split in two left its functions undefined at link time)."""
    listing = sorted(
        str(path.relative_to(root))
        for path in (root / "Sources").rglob("*") if path.is_file())
    listing.append((root / "Package.swift").read_text())
    fingerprint = hashlib.sha256("\n".join(listing).encode()).hexdigest()
    stamp = package / ".sources-fingerprint"
    if (stamp.read_text() if stamp.exists() else None) != fingerprint:
        shutil.rmtree(package / ".build", ignore_errors=True)
    package.mkdir(parents=True, exist_ok=True)
    stamp.write_text(fingerprint)


def build():
    forget_stale_build()
    result = subprocess.run(
        ["swift", "build", "--package-path", str(package), "--scratch-path", str(package / ".build")],
        capture_output=True, text=True)
    if result.returncode == 0:
        return 0
    pattern = re.compile(r"^(.*?/Sources/(Sample\w+)/main\.swift):(\d+):(\d+): (error|warning): (.*)$")
    reported = 0
    seen = set()
    for line in (result.stdout + result.stderr).splitlines():
        match = pattern.match(line)
        if match and match.group(5) == "error":
            where = doc_location(match.group(2), int(match.group(3)))
            key = (where, match.group(6))
            if key not in seen:
                seen.add(key)
                print(f"{where}: {match.group(6)}")
                reported += 1
    if reported == 0:
        print((result.stdout + result.stderr)[-4000:])
        reported = 1
    return reported


if "--no-compile" not in sys.argv[1:]:
    generate()
    errors = build()
    if errors:
        failures += 1
        print(f"the documentation's samples do not compile as printed ({errors} error(s)); "
              f"generated package: {package}")

if failures:
    sys.exit(1)
print(f"README and DocC samples: {len(compiled)} document(s) compiled as printed, "
      f"{fragment_count} fragment(s) found in tests")
