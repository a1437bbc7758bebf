#!/usr/bin/env python3
"""Checks that every Swift sample in README.md (and the DocC articles) is compiled by a test.

Each meaningful line of each ```swift block must appear, in order, in one Swift file under Tests/
(compared without indentation). Lines that elide code (`...`, `{ ... }`) and comments are skipped,
so a sample may leave out what the text does not need, but a renamed type, method or parameter in
the docs fails this check instead of silently rotting.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
docs = [root / "README.md"] + sorted(root.glob("Sources/*/*.docc/*.md"))
sources = {}

SKIP_BLOCKS = ("dependencies: [", "testTarget(", ".package(")


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


for path in root.glob("Tests/**/*.swift"):
    sources[path] = squeeze("".join(strip_comment(l) for l in path.read_text().splitlines()))

failures = 0
for doc in docs:
    text = doc.read_text()
    for number, block in enumerate(re.findall(r"```swift\n(.*?)```", text, re.S), 1):
        if any(marker in block for marker in SKIP_BLOCKS):
            continue
        lines = [strip_comment(l) for l in block.splitlines() if meaningful(l)]
        lines = [l for l in lines if l]
        if not lines:
            continue
        best = None
        for path, haystack in sources.items():
            missing = found_in_order(lines, haystack)
            if missing is None:
                best = None
                break
            best = missing if best is None or lines.index(missing) > lines.index(best) else best
        else:
            failures += 1
            print(f"{doc.relative_to(root)} sample {number}: not compiled by any test; first unmatched line: {best!r}")
if failures:
    print(f"{failures} sample(s) are not covered by a test under Tests/")
    sys.exit(1)
print(f"README and DocC samples: every sample is compiled by a test")
