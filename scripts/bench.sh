#!/usr/bin/env bash
# Runs the suite on a fresh Debian machine: installs what it needs when missing, then the release build.
# Arguments are passed to `bench` (e.g. scripts/bench.sh --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
# jemalloc counts allocations; valgrind (callgrind, and its header at build time) counts instructions;
# binutils' objcopy strips the copy of bench that valgrind runs.
missing=()
pkg-config --exists jemalloc 2>/dev/null || missing+=(libjemalloc-dev pkg-config)
{ command -v valgrind >/dev/null && [ -f /usr/include/valgrind/callgrind.h ]; } || missing+=(valgrind)
command -v objcopy >/dev/null || missing+=(binutils)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}"
fi
exec swift run -c release bench "$@"
