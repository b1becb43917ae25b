#!/usr/bin/env bash
# Runs the suite on a fresh Debian machine: installs what it needs when missing, then the release build.
# Arguments are passed to `bench` (e.g. scripts/bench.sh --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec swift run -c release bench "$@"
