#!/usr/bin/env python3
"""Compares the pipeline's own work per request (NoAuth, no listener) of two builds of
`endpoints-bench`, side by side: both run `pipeline-rounds` at once, pinned to the same core, and
are asked for one round each in turn, so that each pair of rounds is milliseconds apart and the
machine's drift falls on both builds alike. A build's own work in a round is its Endpoints side
minus its raw side; a launch's figure is the median of its paired differences (newer minus
older). Each pair of processes is also a draw of memory layout (the figure moves by ±0.4 µs from
one launch to the next, however many rounds it runs), so the pair is launched again and again,
and the result is the median of the launches' figures.

    scripts/bench-against.py OLDER [NEWER_BINARY] [--launches 8] [--rounds 100] [--per-round 2000]

OLDER is an `endpoints-bench` binary or a commit: a commit is checked out in a worktree under
/tmp, given this checkout's `PipelineRounds.swift` and `pipeline-rounds` mode (its library is left
as it was), and built in release. NEWER_BINARY defaults to this checkout's release build, built
first. Issue 27's bound, for example: `scripts/bench-against.py d9812b7`.
"""
import argparse, os, shutil, statistics, subprocess

parser = argparse.ArgumentParser()
parser.add_argument("older")
parser.add_argument("newer", nargs="?")
parser.add_argument("--launches", type=int, default=8)
parser.add_argument("--rounds", type=int, default=100)
parser.add_argument("--per-round", type=int, default=2000)
args = parser.parse_args()

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

def build(directory):
    subprocess.run(["swift", "build", "-c", "release", "--product", "endpoints-bench"], cwd=directory,
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(directory, ".build/release/endpoints-bench")

if not os.path.exists(args.older):
    # A commit: its library as it was, with this checkout's round-serving harness added.
    commit = subprocess.run(["git", "rev-parse", "--short", args.older], cwd=root, check=True,
                            capture_output=True, text=True).stdout.strip()
    tree = f"/tmp/endpoints-bench-{commit}"
    if not os.path.exists(tree):
        subprocess.run(["git", "worktree", "add", "--detach", tree, commit], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bench = os.path.join(tree, "Sources/EndpointsBench")
    shutil.copy(os.path.join(root, "Sources/EndpointsBench/PipelineRounds.swift"), bench)
    main = open(os.path.join(bench, "main.swift")).read()
    if "pipeline-rounds" not in main:
        main += """
if mode == "pipeline-rounds" {
    try await PipelineRounds.serve(perRound: CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 2_000)
}
"""
        open(os.path.join(bench, "main.swift"), "w").write(main)
    print(f"building {commit} in {tree}", flush=True)
    args.older = build(tree)
if args.newer is None:
    args.newer = build(root)

cpu = str(os.cpu_count() - 1)
def start(binary):
    return subprocess.Popen(["taskset", "-c", cpu, binary, "pipeline-rounds", str(args.per_round)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

def round_of(process):
    process.stdin.write("\n"); process.stdin.flush()
    raw, ours = map(float, process.stdout.readline().split())
    return ours - raw

def launch(index):
    """One pair of processes: the median of its paired differences, and each build's own work."""
    # Which build starts first alternates too.
    older, newer = (start(args.older), start(args.newer)) if index % 2 == 0 else reversed((start(args.newer), start(args.older)))
    for _ in range(10):  # warm both up
        round_of(older); round_of(newer)
    diffs, olds, news = [], [], []
    for round in range(args.rounds):
        if round % 2:
            n = round_of(newer); o = round_of(older)
        else:
            o = round_of(older); n = round_of(newer)
        olds.append(o); news.append(n); diffs.append(n - o)
    for process in (older, newer):
        process.stdin.close(); process.wait()
    return statistics.median(diffs), statistics.median(olds), statistics.median(news)

results = []
for index in range(args.launches):
    d, o, n = launch(index)
    results.append(d)
    print(f"launch {index + 1}: older {o:.2f} µs, newer {n:.2f} µs, newer minus older {d:+.2f} µs per request", flush=True)
results.sort()
q = statistics.quantiles(results, n=4) if len(results) > 1 else results * 3
print(f"newer minus older: median {statistics.median(results):+.2f} µs per request over {len(results)} launches "
      f"(middle half {q[0]:+.2f} to {q[2]:+.2f}; {args.rounds} paired rounds of {args.per_round} requests each)")
