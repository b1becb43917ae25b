#!/usr/bin/env bash
# Installs, on Debian, what the suite needs and this machine lacks:
#   jemalloc (allocation counts), valgrind (instruction counts; its header must be there when bench
#   is built), binutils' objcopy (strips the copy of bench that valgrind runs).
set -euo pipefail
missing=()
pkg-config --exists jemalloc 2>/dev/null || missing+=(libjemalloc-dev pkg-config)
{ command -v valgrind >/dev/null && [ -f /usr/include/valgrind/callgrind.h ]; } || missing+=(valgrind)
command -v objcopy >/dev/null || missing+=(binutils)
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
