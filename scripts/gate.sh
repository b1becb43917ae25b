#!/usr/bin/env bash
# The regression gate, as CI runs it: a release build, then a quick run checked against the
# committed baseline (bench check; see Documentation/Gate.md). Results go to results/latest
# (report.md, results.json, gate.md). Exit: 0 pass; 0 also when only improvements were found (4,
# with a note: commit a new baseline to lock them in); otherwise bench's exit code: 1 a benchmark
# failed (or the build is not one the suite measures fairly), 2 regression, 5 unusable baseline or
# figures the run could not measure.
# With GITHUB_STEP_SUMMARY set (GitHub Actions), the verdict and the report go to the job summary.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
swift build -c release --product bench || exit 1
bench="$(swift build -c release --show-bin-path)/bench"
# No contender's workload code folded into another's (Documentation/Methodology.md, "No contender
# shares another's code"): the compiler names a folded function with the suffix `Tm`.
symbols=$(nm "$bench") || { echo "gate: cannot list the symbols of $bench (nm, from binutils)"; exit 1; }
folded=$(grep -c ' \$s9Workloads.*Tm$' <<<"$symbols")
if [ "$folded" != 0 ]; then
    echo "gate: $folded Workloads functions were folded together in the release build (see Package.swift, Workloads)"
    exit 1
fi
"$bench" check --baseline "${BASELINE:-results/baselines/ci-quick.json}" --quick --output results/latest "$@"
rc=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    { cat results/latest/gate.md 2>/dev/null; echo; echo "<details><summary>report</summary>"; echo;
      cat results/latest/report.md 2>/dev/null; echo; echo "</details>"; } >>"$GITHUB_STEP_SUMMARY"
fi
case $rc in
    0) echo "gate: pass" ;;
    4) echo "gate: only improvements beyond tolerance (commit a new baseline to lock them in)"; rc=0 ;;
    *) echo "gate: failed with exit code $rc" ;;
esac
exit $rc
