#!/usr/bin/env bash
# Checks, on the release `bench`, what a Unix user expects of signals (Documentation/RunningBenchmarks.md,
# "Interrupting and resuming"); scripts/test.sh runs it after the release build:
#   1. SIGHUP (a closed terminal) and SIGTERM a few seconds into a run: what was measured is
#      written, marked interrupted by that signal, and `bench` dies of the signal (status 128 + N);
#      no measuring child is left.
#   2. `bench` killed outright (SIGKILL): its measuring children die with it (the parent-death
#      signal), within half a second.
#   3. `bench check ... | head`: the reader goes away, `bench` still writes gate.md.
# Usage: scripts/signals-check.sh [BENCH]   (default .build/release/bench)
set -uo pipefail
cd "$(dirname "$0")/.."
bench=${1:-.build/release/bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "signals-check: FAIL: $*" >&2; failures=$((failures + 1)); }
# Measuring children of a bench, under valgrind (a copy of the executable) or not.
children() { ps -eo args | grep -F "/bench __measure" | grep -vc grep || true; }
# Whether a measuring child runs, looked at for up to two seconds (between two children, none does).
running() {
    for _ in $(seq 20); do
        [ "$(children)" -gt 0 ] && return 0
        sleep 0.1
    done
    return 1
}

# Starts a quick run (with more options, if given) in a session of its own; waits until a
# measuring child runs.
start() {
    local output=$1
    shift
    setsid "$bench" run --quick --filter '^(primitives|trees)/' "$@" --output "$output" >"$work/out" 2>"$work/err" &
    pid=$!
    for _ in $(seq 100); do [ "$(children)" -gt 0 ] && break; sleep 0.1; done
    sleep 3
}

for signal in HUP TERM; do
    start "$work/$signal"
    running || fail "SIG$signal: no measuring child was running"
    kill "-$signal" "$pid"
    wait "$pid"
    status=$?
    number=$(kill -l "$signal")
    [ "$status" -eq $((128 + number)) ] || fail "SIG$signal: exit status $status, want $((128 + number))"
    grep -q "\"signal\" *: *\"SIG$signal\"" "$work/$signal/results.json" 2>/dev/null \
        || fail "SIG$signal: $work/$signal/results.json is missing or not marked interrupted by SIG$signal"
    [ "$(children)" -eq 0 ] || fail "SIG$signal: measuring children left after bench ended"
done

# A child that would outlive bench long enough to be seen: the counting pass of a million books
# (seconds of silent work in one request; a child that writes dies of its closed pipe anyway).
setsid "$bench" run --filter '^books/toggle-available/' --contender apple --metrics counts --param n=1000000 \
    --output "$work/kill" >"$work/out" 2>"$work/err" &
pid=$!
running || fail "SIGKILL: no measuring child was running"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
left=1
for _ in $(seq 5); do
    sleep 0.1
    left=$(children)
    [ "$left" -eq 0 ] && break
done
[ "$left" -eq 0 ] || fail "SIGKILL: $left measuring child(ren) outlived bench by half a second"

# A reader that is gone before bench writes its first line (as `head` is after its lines).
"$bench" check --baseline results/baselines/ci-quick.json --filter '^primitives/untracked-read$' \
    --output "$work/check" 2>/dev/null | true
status=${PIPESTATUS[0]}
[ "$status" -ne 141 ] || fail "bench check | true: bench died of SIGPIPE"
[ -s "$work/check/gate.md" ] || fail "bench check | true: no gate.md written (exit status $status)"

if [ "$failures" -gt 0 ]; then exit 1; fi
echo "signals-check: SIGHUP and SIGTERM keep what was measured and end bench by the signal; children die with bench; a closed pipe stops no write"
