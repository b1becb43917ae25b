#!/usr/bin/env bash
# Runs the suite on a fresh Debian machine: installs jemalloc when missing, then the release build.
# Arguments are passed to `bench` (e.g. scripts/bench.sh --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! pkg-config --exists jemalloc 2>/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq libjemalloc-dev pkg-config
    else sudo apt-get update -qq && sudo apt-get install -y -qq libjemalloc-dev pkg-config; fi
fi
exec swift run -c release bench "$@"
