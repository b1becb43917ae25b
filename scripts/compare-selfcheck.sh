#!/usr/bin/env bash
# Measures `bench compare` itself (Documentation/RunningBenchmarks.md, "Comparing two runs"), on
# default runs of the benchmarks FILTER selects (default '^(primitives|trees)/'; '' for the whole
# suite):
#   1. two runs of unchanged code compared: no count, allocation or instruction figure changes, and
#      at most one time is listed (the rule's family-wise rate of false calls is 5%);
#   2. a run of a build that slows one benchmark by 20% (BENCH_SELFCHECK_SLOW_BENCHMARK:
#      `lockfree`'s trees/kairo-deep does a fifth more work per operation, see
#      Benchmarks/Workloads/Contenders/FaultInjections.swift) against the first: that benchmark is
#      the first figure listed (its instruction count, which leads), and whether its time is listed
#      is said (it is where the times compared are steady enough: the whole default suite, whose
#      median time varies 2% between processes, calls it from 13%; primitives and trees alone,
#      9%, from about 27%). Another build places the code elsewhere, which moves a few other times
#      too (a tracked read 1.22x): they may be listed beside it.
# The faulted build has a scratch folder of its own (.build-selfcheck-compare). About 2 minutes a
# run on 2 cores, 10 in all. Usage: scripts/compare-selfcheck.sh [FILTER]
set -uo pipefail
cd "$(dirname "$0")/.."
filter=${1-'^(primitives|trees)/'}
selection=()
[ -n "$filter" ] && selection=(--filter "$filter")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "compare-selfcheck: FAIL: $*"; failures=$((failures + 1)); }

swift build -c release --product bench >/dev/null || { echo "build failed"; exit 1; }
bench="$(swift build -c release --show-bin-path)/bench"
flag=BENCH_SELFCHECK_SLOW_BENCHMARK
swift build -c release --product bench --scratch-path .build-selfcheck-compare -Xswiftc "-D$flag" >/dev/null \
    || { echo "$flag: build failed"; exit 1; }
slowed="$(swift build -c release --scratch-path .build-selfcheck-compare --show-bin-path)/bench"

for run in a b; do
    "$bench" run "${selection[@]}" --output "$work/$run" --quiet >/dev/null 2>&1 || fail "run $run failed"
done
"$slowed" run "${selection[@]}" --output "$work/slowed" --quiet >/dev/null 2>&1 || fail "the slowed run failed"

# The count of each kind in the headline ("**Changed**: 2 times, 1 count (...)"), 0 when absent.
listed() { grep -m 1 -o -E "[0-9]+ $2s?\b" <<<"$(grep -m 1 -E '^\*\*(Changed|Nothing changed)' "$1")" | cut -d' ' -f1; }

"$bench" compare "$work/a" "$work/b" >"$work/same.md" || fail "compare of unchanged runs exited $?"
head -n 8 "$work/same.md"
times=$(listed "$work/same.md" time)
[ "${times:-0}" -le 1 ] || fail "unchanged code: ${times} times listed (at most 1 allowed)"
for kind in count "allocation figure" "instruction count"; do
    [ -z "$(listed "$work/same.md" "$kind")" ] || fail "unchanged code: a $kind listed"
done

"$bench" compare "$work/a" "$work/slowed" >"$work/slowed.md" || fail "compare of the slowed run exited $?"
head -n 8 "$work/slowed.md"
# The first figure listed under "Changed" (a table's first row that is not its header).
first=$(sed -n '/^## Changed/,/^## /p' "$work/slowed.md" | grep '^| ' | grep -v '^| benchmark |' | head -n 1)
grep -q '^| trees/kairo-deep | lockfree |' <<<"$first" \
    || fail "the slowed benchmark is not the first figure listed (first: ${first:-none})"
# Its time is listed where the times compared are steady enough to see 20% (the section "How
# changes are called" says from what change a typical time is called); said, not failed.
if grep -q '^| trees/kairo-deep | lockfree | time |' <(sed -n '/^### Times/,/^## /p' "$work/slowed.md"); then
    slowed_time="its time listed too"
else
    slowed_time="its time not listed (see the Times line below for what this selection could detect)"
fi
sed -n '/^### /,/^## How/p' "$work/slowed.md" | grep -v '^$' | head -n 20
sed -n '/^- Times/p' "$work/slowed.md"

if [ "$failures" -gt 0 ]; then exit 1; fi
echo "compare-selfcheck: unchanged code listed ${times:-0} time(s); the 20% slowdown was listed first, ${slowed_time}"
