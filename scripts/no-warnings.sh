#!/usr/bin/env bash
# Reads a build's output on stdin, passes it through, and fails (exit 1) when the compiler or the
# package manager warned about the project's own code: a source file of the checkout, a macro
# expansion in it, or the package's manifest. Warnings from the toolchain's own files or from
# the build folders are left to their owners. Usage: swift build ... 2>&1 | scripts/no-warnings.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
tee "$log"
# One line per warning: the compiler's `path:line:col: warning:` (or `macro expansion ...:
# warning:`), the package manager's `warning: 'package': ...`.
warnings=$(grep -E '(^|: )warning: ' "$log" | grep -v -E '/\.build[^/]*/' | grep -E "^($root/|(Sources|Benchmarks|Tests|Package)|macro expansion|warning: )" | sort -u)
if [ -n "$warnings" ]; then
    echo "no-warnings: the build warned about the project's code ($(wc -l <<<"$warnings") distinct warnings):" >&2
    echo "$warnings" >&2
    exit 1
fi
