#!/usr/bin/env python3
"""Regenerates the README's result tables (Results, the ablation by family, re-tracking against
naive, render costs, the probe) from a default run kept with `--keep-samples`: its samples.json
(the paired, moderated time ratios, as `bench` computes them) and report.md.

Usage: scripts/readme-results.py results/reference README.md
"""
import json, math, re, sys

folder = sys.argv[1]
readme_path = sys.argv[2]
samples = json.load(open(f"{folder}/samples.json"))
report = open(f"{folder}/report.md").read()

res = {}
for r in samples["results"]:
    res[(r["benchmark"], r["contender"])] = {m["name"]: m for m in r["metrics"]}

def pct50(xs):
    s = sorted(xs); h = (len(s) - 1) * 0.5; lo = int(math.floor(h)); up = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[up] - s[lo])

def round_logs(a, b):
    out = []
    for x, y in zip(a, b):
        if not x or not y: continue
        mx, my = pct50(x), pct50(y)
        if mx > 0 and my > 0: out.append(math.log(mx / my))
    return out

def var(v):
    m = sum(v) / len(v); return sum((x - m) ** 2 for x in v) / (len(v) - 1)

def t975(df):
    t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
    return t[df - 1] if 1 <= df <= len(t) else 1.96 + 2.4 / df

def procs(b, c):
    m = res.get((b, c), {}).get("time")
    if not m or "processes" not in m or sum(m["processes"]) != len(m["samples"]): return None
    out, start = [], 0
    for n in m["processes"]:
        out.append(m["samples"][start:start + n]); start += n
    return out

benchmarks = []
for r in samples["results"]:
    if r["benchmark"] not in benchmarks: benchmarks.append(r["benchmark"])
contenders = sorted({c for _, c in res})
pool = []
for b in benchmarks:
    for c in contenders:
        if c in ("lockfree", "floor"): continue
        pa, pb = procs(b, "lockfree"), procs(b, c)
        if pa and pb:
            logs = round_logs(pa, pb)
            if len(logs) >= 3: pool.append(var(logs))
pooled = sum(pool) / len(pool)

def estimate(b, num, den):
    """num ÷ den from paired rounds, moderated; (ratio, low, high) or None."""
    pa, pb = procs(b, num), procs(b, den)
    if not pa or not pb: return None
    logs = round_logs(pa, pb)
    if len(logs) < 2: return None
    k = len(logs); mean = sum(logs) / k
    if k < 3: return (math.exp(mean), None, None)
    v = var(logs); df = k - 1
    v = (df * v + 4 * pooled) / (df + 4); df += 4
    half = t975(df) * math.sqrt(v) * math.sqrt(2 / k)
    return (math.exp(mean), math.exp(mean - half), math.exp(mean + half))

def rv(x):
    if x >= 10 or x == 0: return f"{x:.1f}"
    if x >= 0.1: return f"{x:.2f}"
    d = min(12, 1 - int(math.floor(math.log10(x)))); return f"{x:.{d}f}"

def instr(b, c):
    m = res.get((b, c), {}).get("instructions")
    return m["summary"]["p50"] if m else None

def summary(b, c, name):
    m = res.get((b, c), {}).get(name)
    return m["summary"]["p50"] if m else None

def fmt_count(x):
    if x is None: return "–"
    if abs(x) >= 100: return f"{x:,.0f}"
    if x == int(x): return f"{int(x)}"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"

def fmt_instr(x):
    if x is None: return "–"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"

def ftime(ns):
    if ns is None: return ""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1)):
        if ns >= scale or unit == "ns":
            v = ns / scale
            s = f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
            return f"{s} {unit}"

def p50(b, c):
    m = res.get((b, c), {}).get("time")
    return m["summary"]["p50"] if m else None

# The headline table of report.md: p50 cells exactly as the report prints them.
head = {}
for line in report.split("## Headline", 1)[1].split("\n## ", 1)[0].splitlines():
    if line.startswith("| ") and not line.startswith("| benchmark"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        head[cells[0]] = cells

def report_p50(b, i):
    cells = head.get(b)
    if not cells: return ftime(p50(b, ["lockfree", "locked", "apple", "naive", "floor"][i]))
    return cells[1 + i].split(" / ")[0].replace("–", "")

def main_row(name):
    base = name.replace(" (the floor)", "")
    if base == "primitives/plain-read":
        return f"| {name} | {report_p50(base, 4)} | | | | | {fmt_instr(instr(base, 'floor'))} | | |"
    cells = [name] + [report_p50(base, i) for i in range(4)]
    e = estimate(base, "apple", "lockfree")
    ia, il = instr(base, "apple"), instr(base, "lockfree")
    t = f"{rv(e[0])}× [{rv(e[1])}, {rv(e[2])}]" if e and e[1] else (f"{rv(e[0])}×" if e else "")
    cells.append(f"{rv(ia / il)}× instr · {t} time" if ia and il else t)
    cs = ["lockfree", "locked", "apple", "naive"]
    floor = f" (floor {fmt_instr(instr(base, 'floor'))}, {report_p50(base, 4)})" if instr(base, "floor") else ""
    cells.append(" / ".join(fmt_instr(instr(base, c)) for c in cs) + floor if il else "")
    cells.append(" / ".join(fmt_count(summary(base, c, "mallocs")) for c in cs))
    cells.append(" / ".join(fmt_count(summary(base, c, "invalidations")) for c in cs))
    return "| " + " | ".join(cells) + " |"

families = [
    ("reads and writes (primitives: reads, mutations, create-destroy, threads)",
     r"^primitives/(untracked-read|tracked-read$|mutation-|create-destroy)"),
    ("track and fire (primitives: track-*-fire, fire-scopes)", r"^primitives/(track-(properties|objects)-fire|fire-scopes)"),
    ("re-tracking (primitives: retrack-*, tracked-read-threads*, track-once-threads)",
     r"^primitives/(retrack-|tracked-read-threads|track-once-threads)"),
    ("kairo trees", r"^trees/kairo-"),
    ("other view trees (cellx, grid, fan-out, selector, scope-isolation, coalescing)", r"^trees/(?!kairo-)"),
    ("books: steps that re-run the count view over every book (toggle, swap, insertions, threads)",
     r"^books/(toggle-|swap|remove-insert|append-remove|threads)"),
    ("books: steps that touch a few rows (rename, equal-write, update-every-10th, select, scroll)",
     r"^books/(rename-|equal-write|update-every-10th|select|scroll)"),
    ("settings and continuous observation", r"^(settings|observation)/"),
]

def geo(v): return math.exp(sum(math.log(x) for x in v) / len(v))

def family_rows():
    rows = []
    for label, pattern in families:
        names = [b for b in benchmarks if re.search(pattern, b) and all(p50(b, c) for c in ("lockfree", "locked", "apple"))]
        design = [p50(b, "apple") / p50(b, "locked") for b in names]
        lock = [p50(b, "locked") / p50(b, "lockfree") for b in names]
        total = [p50(b, "apple") / p50(b, "lockfree") for b in names]
        share = math.log(geo(design)) / math.log(geo(total))
        verdict = "the design" if share >= 0.7 else "lock-freedom" if share <= 0.3 else "both"
        rows.append(f"| {label} ({len(names)}) | {geo(design):.1f}× | {geo(lock):.2f}× ({min(lock):.2f} to {max(lock):.2f}) "
                    f"| {geo(total):.1f}× | {verdict} ({share * 100:.0f}% of the log-ratio) |")
    return rows

def retrack_row(names):
    ins, times = [], []
    for b in names:
        a, n = instr(b, "lockfree"), instr(b, "naive")
        ins.append(f"{a / n:.2f}" if a and n else "–")
        e = estimate(b, "lockfree", "naive")
        times.append(f"{rv(e[0])}× [{rv(e[1])}, {rv(e[2])}]")
    return f"| {' / '.join(names)} | {' / '.join(ins)} | {' / '.join(times)} |"

def section(text, title):
    return text.split(title, 1)[1].split("\n## ", 1)[0]

readme = open(readme_path).read()
lines = readme.split("\n")
out = []
mode = None
for line in lines:
    if line.startswith("| benchmark | lockfree p50 | locked p50 | apple p50 | naive p50 | apple ÷ lockfree"):
        mode = "main"; out.append(line); continue
    if line.startswith("| family (benchmarks) | apple ÷ locked"):
        mode = "family"; out.append(line); continue
    if line.startswith("| benchmark | lockfree ÷ naive: instructions"):
        mode = "retrack"; out.append(line); continue
    if line.startswith("| family | render 0:"):
        mode = "render"; out.append(line); continue
    if line.startswith("| benchmark | suite apple p50 | probe p50"):
        mode = "probe"; out.append(line); continue
    if line.startswith("| benchmark | lockfree | locked | apple | naive |"):
        mode = "scaling"; out.append(line); continue
    if mode and not line.startswith("|"):
        mode = None
    if mode and line.startswith("|---"):
        out.append(line)
        if mode == "family":
            out.extend(family_rows())
        elif mode == "render":
            t = section(report, "## Render cost")
            out.extend(l for l in t.splitlines() if l.startswith("| render/"))
        elif mode == "scaling":
            t = section(report, "## Thread scaling")
            out.extend(l for l in t.splitlines() if l.startswith("| ") and not l.startswith("| benchmark"))
        elif mode == "probe":
            t = section(report, "## Agreement with an outside measurement")
            for l in t.split("|---", 1)[1].splitlines()[1:]:
                if not l.startswith("| "): break
                out.append(l)
            # only the first table
        continue
    if mode == "main":
        out.append(main_row(line.split("|")[1].strip())); continue
    if mode == "retrack":
        out.append(retrack_row([n.strip() for n in line.split("|")[1].split(" / ")])); continue
    if mode in ("family", "render", "probe", "scaling"):
        continue
    out.append(line)
open(readme_path, "w").write("\n".join(out))
print(f"pooled variance {pooled:.4f}")
