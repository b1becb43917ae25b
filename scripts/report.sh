#!/usr/bin/env bash
# Regenerates report.md, its report-<group>.md pages and the SVG charts from a results.json:
#   scripts/report.sh [results/latest/results.json] [output folder (default: the input's folder)]
# A thin wrapper over `bench report`. Uses $BENCH when set (a built bench binary), otherwise
# `swift run -c release bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
input=${1:-results/latest/results.json}
args=(report --input "$input")
if [ $# -ge 2 ]; then args+=(--output "$2"); fi
if [ -n "${BENCH:-}" ]; then exec "$BENCH" "${args[@]}"; fi
exec swift run -c release bench "${args[@]}"
