#!/usr/bin/env bash
# Runs every test on a fresh Debian machine: installs what the tests need when missing (jemalloc,
# valgrind's header), then
#   1. `swift format lint` (the style of .swift-format); the build of every target and test,
#      failing on any warning about the project's code (scripts/no-warnings.sh: a fresh build
#      compiles everything; an incremental one shows only what it recompiles);
#      `swift test`: all tests, jemalloc linked;
#      then, in a process of their own, the tests that
#      need no observed write in flight anywhere in the process (TRACKING_TESTS_ALONE=1); the
#      Observation bridge's tests with Observation's thread-local left unread; then
#      LockFreeObservation's documentation
#      (scripts/docs.sh: DocC over the module just built, failing on a warning such as a broken
#      link); then the re-entrancy fuzzer for a minute;
#   2. the registrar's tests, its own and the contract both registrars promise
#      (RegistrarContractTests), with their race windows widened (the SchedulePoints trait;
#      `--traits` replaces the default traits, so jemalloc is off there), the tests that run
#      alone included;
#   3. both registrars' tests, their own and the contract's, under ThreadSanitizer (default
#      traits off: jemalloc, since both replace malloc), the tests that run alone included;
#   4. the same under AddressSanitizer (default traits off, for jemalloc), without its
#      leak check: an object's slot-block address is kept shifted in a word with the observed
#      mask (`SlotsWord`), where the leak check cannot see it, so it reports the blocks of objects
#      still alive at exit (kept so by an armed scope's callback) as leaked;
#   5. the release build, failing on a warning as in 1 (scripts/gate.sh then finds it built), and
#      scripts/signals-check.sh on it (SIGHUP, SIGTERM, a killed bench, a closed pipe); the
#      registrars' and the bridge's tests again in a release build, in both bridge modes;
#   6. the adopter package (Tests/Adopter): a package of its own that depends on this one by path
#      and declares an app's models in a module of its own, built failing on a warning, its
#      tests (debug and release), `adopter-streams` (streams consumed on a process's main thread)
#      for 20 rounds, `bridge-check` (debug, release, release forwarding every read, a static
#      standard library), and `Refused/`, which must fail with @TrackedModel's error.
# Separate build folders, so that no build undoes another. `scripts/test.sh --fast` runs the tests
# and the documentation of step 1 only.
# Where nothing can be installed (no root, no sudo), the tests run without jemalloc, and the
# allocation tests say that allocation counts are unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."

traits=()
if ! scripts/install-deps.sh; then
    echo "test.sh: could not install jemalloc and valgrind; testing without jemalloc (--disable-default-traits)" >&2
    traits=(--disable-default-traits)
fi

# The code style (.swift-format), checked before anything builds.
swift format lint --strict --recursive --parallel Sources Benchmarks Tests Package.swift
swift build --build-tests "${traits[@]}" 2>&1 | scripts/no-warnings.sh
swift test "${traits[@]}"
# The tests that need no observed write in flight anywhere in the process (they look at the
# process-wide count that every other test writes) run in a process of their own, one at a time.
alone='CheckedArmingTests|aHeldRunLetsGoOfItsCursor'
TRACKING_TESTS_ALONE=1 swift test --skip-build "${traits[@]}" --filter "$alone"
# The Observation bridge's tests again with Observation's thread-local left unread, as where it
# cannot be found: every bridged read then goes to Observation's registrar.
LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL=1 swift test --skip-build "${traits[@]}" --filter ObservationBridge
scripts/docs.sh "${traits[@]}"
[ "${1:-}" = --fast ] && exit 0
# The re-entrancy fuzzer (Documentation/Guarantees.md) for a minute from a random seed; in the
# builds below, for 20 seconds each among the registrar's other tests.
REENTRANCY_FUZZ_SECONDS=60 swift test --skip-build "${traits[@]}" --filter ReentrancyFuzzTests
export REENTRANCY_FUZZ_SECONDS=20
swift test --scratch-path .build-schedule --traits SchedulePoints --filter 'LockFreeObservationTests|RegistrarContractTests'
TRACKING_TESTS_ALONE=1 swift test --skip-build --scratch-path .build-schedule --traits SchedulePoints --filter "$alone"
swift test --scratch-path .build-tsan --sanitize=thread --disable-default-traits --filter 'LockFreeObservationTests|LockedObservationTests|RegistrarContractTests'
TRACKING_TESTS_ALONE=1 swift test --skip-build --scratch-path .build-tsan --sanitize=thread --disable-default-traits --filter "$alone"
ASAN_OPTIONS=detect_leaks=0 swift test --scratch-path .build-asan --sanitize=address --disable-default-traits \
    --filter 'LockFreeObservationTests|LockedObservationTests|RegistrarContractTests'
swift build -c release "${traits[@]}" 2>&1 | scripts/no-warnings.sh
# Signals as a Unix user expects them of the release bench: SIGHUP and SIGTERM keep what was
# measured and end bench by that signal, children die with a killed bench, `| head` stops no write.
scripts/signals-check.sh
# The registrars' and the bridge's tests again in a release build (an optimiser can break what a
# debug build hides), with Observation's thread-local read directly and with every read forwarded.
# `-enable-testing` for the tests' `@testable import`; a build folder of its own.
release=(-c release -Xswiftc -enable-testing --scratch-path .build-release "${traits[@]}")
swift build --build-tests "${release[@]}" 2>&1 | scripts/no-warnings.sh
swift test --skip-build "${release[@]}" --filter 'LockFreeObservationTests|LockedObservationTests|RegistrarContractTests'
LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL=1 swift test --skip-build "${release[@]}" --filter ObservationBridge
(
    cd Tests/Adopter
    swift build --build-tests 2>&1 | ../../scripts/no-warnings.sh
    swift test --skip-build
    "$(swift build --show-bin-path)/adopter-streams" 20
    # Observation's own tracking of the adopter's bridged models, in each configuration an app
    # ships: debug, release (the thread-local read directly), release forwarding every read (the
    # only mode on Apple platforms), and release linked with the standard library statically (no
    # libswiftObservation.so to find: forwarding), where the toolchain ships one.
    "$(swift build --show-bin-path)/bridge-check" 50 | tee /dev/stderr | tail -n 1 | grep -q 'read directly'
    swift build -c release --build-tests -Xswiftc -enable-testing 2>&1 | ../../scripts/no-warnings.sh
    swift test --skip-build -c release -Xswiftc -enable-testing
    release_bin=$(swift build -c release -Xswiftc -enable-testing --show-bin-path)
    "$release_bin/bridge-check" 50 | tee /dev/stderr | tail -n 1 | grep -q 'read directly'
    LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL=1 "$release_bin/bridge-check" 50 | tee /dev/stderr | tail -n 1 \
        | grep -q 'every read forwarded'
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
    if [ -f "$toolchain/lib/swift_static/linux/libswiftObservation.a" ]; then
        swift build -c release --static-swift-stdlib --product bridge-check --scratch-path .build-static 2>&1 \
            | ../../scripts/no-warnings.sh
        "$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/bridge-check" 50
    else
        echo "test.sh: no static standard library in this toolchain; the static-stdlib bridge check is skipped" >&2
    fi
    # A bridged subclass of a model that is not bridged, from another module: refused with
    # @TrackedModel's error (and its fix-it), never compiled into a model Observation misses.
    refused_log=$(mktemp)
    if ADOPTER_REFUSED=1 swift build --target RefusedModels --scratch-path .build-refused >"$refused_log" 2>&1; then
        echo "test.sh: Refused/ compiled; a bridged subclass of a plain model must be an error" >&2
        exit 1
    fi
    grep -q "TrackedObservable is listed on the root model of a hierarchy" "$refused_log" \
        || { cat "$refused_log" >&2; echo "test.sh: Refused/ failed without @TrackedModel's error" >&2; exit 1; }
    rm -f "$refused_log"
)
