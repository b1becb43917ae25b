#!/usr/bin/env python3
"""Regenerates the figures of README.md and Documentation/Ablation.md from a committed run.

Reads the run's results.json (summaries, as `bench` writes them) and writes:
  - README.md, between <!-- results:begin --> and <!-- results:end -->: where and when the run was
    measured, and the headline table;
  - Documentation/Design.md, between <!-- bridge:begin --> and <!-- bridge:end -->: what bridging
    to Observation costs, by family (bridged / apple and bridged-scopes / lockfree);
  - Documentation/Ablation.md, between <!-- ablation:begin --> and <!-- ablation:end -->: the
    ablation by family (apple / locked / lockfree, geometric means of p50 ratios).
Nothing else in either file is touched; run it after re-measuring the reference run.

Usage: scripts/readme-results.py [RESULTS_FOLDER] [README] [ABLATION_DOC] [DESIGN_DOC]
       (defaults: results/reference README.md Documentation/Ablation.md Documentation/Design.md)
"""
import json, math, re, sys

folder = sys.argv[1] if len(sys.argv) > 1 else "results/reference"
readme_path = sys.argv[2] if len(sys.argv) > 2 else "README.md"
ablation_path = sys.argv[3] if len(sys.argv) > 3 else "Documentation/Ablation.md"
design_path = sys.argv[4] if len(sys.argv) > 4 else "Documentation/Design.md"

run = json.load(open(f"{folder}/results.json"))
meta = run["metadata"]
metrics = {(r["benchmark"], r["contender"]): r["metrics"] for r in run["results"]}
benchmarks = list(dict.fromkeys(r["benchmark"] for r in run["results"]))

# The headline table: one row per question a reader asks, the benchmark that answers it.
HEADLINE = [
    ("a tracked read (a property read again in a scope)", "primitives/tracked-read"),
    ("a write nobody observes", "primitives/mutation-unobserved/objects=1"),
    ("track one property, then a write fires the scope", "primitives/track-properties-fire/properties=1"),
    ("a view re-evaluated over 64 unchanged objects", "primitives/retrack-unchanged/objects=64"),
    ("one write fires 1,000 scopes", "primitives/fire-scopes/scopes=1000"),
    ("rename a book shown in a list of 100,000", "books/rename-title/n=100000/visible=50"),
    ("toggle a book: the count view re-reads 100,000 books", "books/toggle-available/n=100000/visible=50"),
    ("a chain of 50 derived views (kairo deep)", "trees/kairo-deep"),
]


def p50(b, c):
    m = metrics.get((b, c), {}).get("time")
    return m["p50"] if isinstance(m, dict) else None


def instructions(b, c):
    v = metrics.get((b, c), {}).get("instructions")
    return v if isinstance(v, (int, float)) else None


def ftime(ns):
    if ns is None:
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1)):
        if ns >= scale or unit == "ns":
            v = ns / scale
            return (f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}") + f" {unit}"


def fratio(x):
    if x >= 100:
        return f"{x:,.0f}×"
    return f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def ratio_cell(b, num, den):
    """num ÷ den: instructions where both were counted, then p50 time."""
    parts = []
    i, j = instructions(b, num), instructions(b, den)
    if i and j:
        parts.append(f"{fratio(i / j)} instr")
    t, u = p50(b, num), p50(b, den)
    if t and u:
        parts.append(f"{fratio(t / u)} time")
    return " · ".join(parts) or "–"


def headline():
    commit = meta.get("gitCommit", "unknown")[:7]
    date = meta["date"][:10]
    lines = [
        f"Measured {date} on {meta['cpu']} ({meta['cores']} cores, {meta['machine']}), Swift {meta['toolchain']},"
        f" {meta['allocator'].split('-')[0]}, {meta.get('instructionCounter', 'no instruction counter')},"
        f" at commit {commit}, with `{' '.join(meta['command'])}` ({meta['mode']} suite). p50 time per"
        " operation; ratios of instructions per operation where callgrind counted them, then of p50 times.",
        "",
        "| what | lockfree | apple (`@Observable`) | naive (publish everything) | apple ÷ lockfree | naive ÷ lockfree |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, b in HEADLINE:
        if p50(b, "lockfree") is None:
            sys.exit(f"readme-results: {b} is not in {folder}/results.json")
        lines.append(
            f"| {label} | {ftime(p50(b, 'lockfree'))} | {ftime(p50(b, 'apple'))} | {ftime(p50(b, 'naive'))}"
            f" | {ratio_cell(b, 'apple', 'lockfree')} | {ratio_cell(b, 'naive', 'lockfree')} |")
    return lines


FAMILIES = [
    ("reads and writes", r"^primitives/(untracked-read|tracked-read$|mutation-|create-destroy)"),
    ("track and fire", r"^primitives/(track-(properties|objects)-fire|fire-scopes)"),
    ("re-tracking", r"^primitives/(retrack-|tracked-read-threads|track-once-threads)"),
    ("kairo trees", r"^trees/kairo-"),
    ("other view trees", r"^trees/(?!kairo-)"),
    ("books: steps that re-run the count view", r"^books/(toggle-|swap|remove-insert|append-remove|threads)"),
    ("books: steps that touch a few rows", r"^books/(rename-|equal-write|update-every-10th|select|scroll)"),
    ("settings and continuous observation", r"^(settings|observation)/"),
]


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def ablation():
    lines = [
        f"From the reference run ({meta['date'][:10]}, {meta['cpu']}, {meta['cores']} cores, Swift {meta['toolchain']},"
        f" `{folder}/results.json`): per family, the geometric mean of the p50 time ratios.",
        "",
        "| family (benchmarks) | apple ÷ locked: the design | locked ÷ lockfree: lock-freedom (range) | apple ÷ lockfree | the win comes mostly from |",
        "|---|---:|---:|---:|---|",
    ]
    for label, pattern in FAMILIES:
        names = [b for b in benchmarks if re.search(pattern, b) and all(p50(b, c) for c in ("lockfree", "locked", "apple"))]
        if not names:
            continue
        design = geo([p50(b, "apple") / p50(b, "locked") for b in names])
        lock = [p50(b, "locked") / p50(b, "lockfree") for b in names]
        total = geo([p50(b, "apple") / p50(b, "lockfree") for b in names])
        share = math.log(design) / math.log(total)
        verdict = "the design" if share >= 0.7 else "lock-freedom" if share <= 0.3 else "both"
        lines.append(
            f"| {label} ({len(names)}) | {design:.1f}× | {geo(lock):.2f}× ({min(lock):.2f} to {max(lock):.2f})"
            f" | {total:.1f}× | {verdict} ({share * 100:.0f}% of the log-ratio) |")
    return lines


BRIDGE_FAMILIES = [
    ("reads and writes", r"^primitives/(untracked-read|tracked-read$|mutation-|create-destroy)"),
    ("track, fire, re-track", r"^primitives/(track-(properties|objects)-fire|fire-scopes|retrack-|tracked-read-threads|track-once-threads)"),
    ("view trees", r"^trees/"),
    ("books", r"^books/"),
    ("settings and continuous observation", r"^(settings|observation)/"),
    ("render costs", r"^render/"),
    ("streams", r"^stream/"),
]


def bridged_ratio(b, num, den):
    """num / den in instructions where both were counted, else in p50 time; None if either is missing."""
    i, j = instructions(b, num), instructions(b, den)
    if i and j:
        return i / j
    t, u = p50(b, num), p50(b, den)
    return t / u if t and u else None


def same_counts(b, num, den):
    keys = ("invalidations", "unnecessary", "missed")
    a, c = metrics.get((b, num), {}), metrics.get((b, den), {})
    return all(a.get(k) == c.get(k) for k in keys)


def bridge():
    lines = [
        f"From the reference run ({meta['date'][:10]}): per family, the geometric mean and the largest of each"
        " ratio, in instructions per operation where callgrind counted both, else in p50 time.",
        "",
        "| family (benchmarks) | bridged ÷ apple: what SwiftUI pays (largest) | bridged-scopes ÷ lockfree: unwatched by SwiftUI (largest) | invalidations |",
        "|---|---:|---:|---|",
    ]
    for label, pattern in BRIDGE_FAMILIES:
        names = [b for b in benchmarks if re.search(pattern, b)]
        swiftui = [(bridged_ratio(b, "bridged", "apple"), b) for b in names]
        swiftui = [(r, b) for r, b in swiftui if r]
        scopes = [(bridged_ratio(b, "bridged-scopes", "lockfree"), b) for b in names]
        scopes = [(r, b) for r, b in scopes if r]
        if not swiftui and not scopes:
            continue
        def cell(pairs):
            if not pairs:
                return "–"
            return f"{geo([r for r, _ in pairs]):.2f}× ({max(r for r, _ in pairs):.2f}×)"
        agree = all(same_counts(b, "bridged", "apple") for _, b in swiftui) and all(
            same_counts(b, "bridged-scopes", "lockfree") for _, b in scopes)
        lines.append(
            f"| {label} ({len(set(b for _, b in swiftui + scopes))}) | {cell(swiftui)} | {cell(scopes)}"
            f" | {'the same in every pair' if agree else 'differ: see the report'} |")
    return lines


def replace_block(path, name, lines):
    text = open(path).read()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        sys.exit(f"readme-results: {path} lacks {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    open(path, "w").write(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)


replace_block(readme_path, "results", headline())
replace_block(design_path, "bridge", bridge())
replace_block(ablation_path, "ablation", ablation())
print(f"readme-results: {readme_path}, {ablation_path} and {design_path} from {folder}/results.json")
