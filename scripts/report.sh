#!/usr/bin/env bash
# Regenerates report.md and the SVG charts from a results.json:
#   scripts/report.sh [results/latest/results.json] [output folder]
# A thin wrapper over `bench report`; builds bench (release) when needed.
set -euo pipefail
cd "$(dirname "$0")/.."
input=${1:-results/latest/results.json}
args=(report --input "$input")
[ $# -ge 2 ] && args+=(--output "$2")
exec swift run -c release bench "${args[@]}"
