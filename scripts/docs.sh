#!/usr/bin/env bash
# Builds LockFreeObservation's documentation with the toolchain's DocC, failing on any warning (a
# broken ``Symbol`` or <doc:Article> link, a parameter documented that the symbol does not have):
#   1. `swift build` of the LockFreeObservation target (debug);
#   2. its public symbol graph, macros included, with `swift-symbolgraph-extract`;
#   3. `docc convert` of Sources/LockFreeObservation/LockFreeObservation.docc over that graph,
#      with `--warnings-as-errors`.
# `docc` and `swift-symbolgraph-extract` are taken from beside the `swift` on PATH. The archive is
# written to <build path>/docs/LockFreeObservation.doccarchive (not committed).
#
#   scripts/docs.sh [--build-path PATH] [other `swift build` options, e.g. --disable-default-traits]
#
# The build path defaults to `.build`, where `scripts/test.sh`'s first `swift test` built the
# module already; pass the same traits as that build so that nothing is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."

build_path=.build
build_options=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build-path | --scratch-path)
        build_path=$2
        shift 2
        ;;
    --build-path=* | --scratch-path=*)
        build_path=${1#*=}
        shift
        ;;
    *)
        build_options+=("$1")
        shift
        ;;
    esac
done

swift=$(command -v swift) || { echo "docs.sh: no swift on PATH" >&2; exit 1; }
toolchain_bin=$(dirname "$(readlink -f "$swift")")
docc=$toolchain_bin/docc
extract=$toolchain_bin/swift-symbolgraph-extract
for tool in "$docc" "$extract"; do
    [ -x "$tool" ] || { echo "docs.sh: $(basename "$tool") not found beside $swift (in $toolchain_bin)" >&2; exit 1; }
done
target=$(swift -print-target-info | sed -n 's/^ *"triple": *"\([^"]*\)".*/\1/p' | head -n 1)
[ -n "$target" ] || { echo "docs.sh: no target triple in 'swift -print-target-info'" >&2; exit 1; }

start=$SECONDS
swift build --build-path "$build_path" "${build_options[@]}" --target LockFreeObservation
bin=$(swift build --build-path "$build_path" "${build_options[@]}" --show-bin-path)

docs=$build_path/docs
graphs=$docs/symbol-graphs
archive=$docs/LockFreeObservation.doccarchive
rm -rf "$graphs" "$archive"
mkdir -p "$graphs"
# The C module the registrar imports is found through the module map SwiftPM generated for it.
"$extract" -module-name LockFreeObservation -target "$target" \
    -I "$bin/Modules" -I "$bin/CTrackingSupport.build" \
    -minimum-access-level public -output-dir "$graphs"
# The macros are declarations of the module: the graph must hold them.
grep -q '"swift.macro"' "$graphs/LockFreeObservation.symbols.json" \
    || { echo "docs.sh: the symbol graph holds no macro declaration" >&2; exit 1; }

"$docc" convert Sources/LockFreeObservation/LockFreeObservation.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name LockFreeObservation --fallback-bundle-identifier LockFreeObservation \
    --output-path "$archive" --warnings-as-errors
echo "docs.sh: $archive ($((SECONDS - start)) s)"
