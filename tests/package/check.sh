#!/usr/bin/env bash
# The package test: installs a configured and built corank build directory into a
# temporary prefix, then builds and runs the consumer of tests/package twice (and, where the
# build has corank::nccl, its NCCL consumer):
#   1. find_package(corank CONFIG) against that prefix;
#   2. add_subdirectory of this checkout;
# and checks that the package refuses a consumer compiling for sm_75.
# Usage: tests/package/check.sh [BUILD_DIR]   (default: build; run from anywhere)
# Exits nonzero, after a "package test FAILED: ..." line, if any step fails.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build}" 2>/dev/null && pwd)" || {
  echo "package test FAILED: no build directory ${1:-$root/build}" >&2
  exit 1
}
arch="${CMAKE_CUDA_ARCHITECTURES:-${CUDAARCHS:-90}}"  # as the build it installs
tmp="$(mktemp -d "${TMPDIR:-/tmp}/corank-package.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

step() {  # step "what" command...: runs it, or says what failed and exits
  local what="$1"
  shift
  echo "== package test: $what"
  "$@" || {
    echo "package test FAILED: $what" >&2
    exit 1
  }
}

prefix="$tmp/prefix"
step "install $build into a temporary prefix" cmake --install "$build" --prefix "$prefix"

cmakedir="$prefix/lib/cmake/corank"
[[ -d "$cmakedir" ]] || cmakedir="$(dirname "$(find "$prefix" -name corankConfig.cmake -print -quit)")"
for f in "$cmakedir/corankConfig.cmake" "$cmakedir/corankConfigVersion.cmake" \
         "$prefix/include/corank/corank.cuh" "$prefix/include/corank/ops/merge.hpp" \
         "$prefix/include/corank/examples/sparse_add.hpp"; do
  step "installed $(basename "$f")" test -f "$f"
done
step "installed libcorank.a" test -n "$(find "$prefix" -name libcorank.a -print -quit)"
if grep -q '^CORANK_BUILD_CLI:BOOL=ON' "$build/CMakeCache.txt"; then
  step "installed bin/corank" test -x "$prefix/bin/corank"
fi
no_test_deps() { ! grep -Eq 'fmt::|GTest::' "$cmakedir"/corankTargets*.cmake; }
step "fmt and GTest are not in the installed link interface" no_test_deps

common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch")

step "configure the consumer (find_package)" \
  cmake -S "$root/tests/package" -B "$tmp/installed" "${common[@]}" -DCMAKE_PREFIX_PATH="$prefix"
step "build the consumer (find_package)" cmake --build "$tmp/installed"
step "run the consumer (find_package)" "$tmp/installed/consumer"
# corank::nccl is in the package where corank was built with NCCL (CORANK_WITH_NCCL).
with_nccl=0
grep -q '^CORANK_WITH_NCCL:BOOL=ON' "$build/CMakeCache.txt" && with_nccl=1
if ((with_nccl)); then
  step "corank::nccl in the package: consumer_nccl built (find_package)" test -x "$tmp/installed/consumer_nccl"
  step "run consumer_nccl (find_package)" "$tmp/installed/consumer_nccl"
fi

# A consumer compiling for an architecture older than sm_80 is stopped by the package at
# configure time, with the fix (cmake/corankArchitectures.cmake).
refused() {
  local said
  said="$(cmake -S "$root/tests/package" -B "$tmp/refused" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=75 \
    -DCMAKE_PREFIX_PATH="$prefix" 2>&1)" && return 1
  grep -q "corank needs GPU architecture sm_80 or newer" <<<"$said"
}
step "a consumer for sm_75 is refused at configure time (find_package)" refused

step "configure the consumer (add_subdirectory)" \
  cmake -S "$root/tests/package" -B "$tmp/subdirectory" "${common[@]}" \
  -DCONSUMER_ADD_SUBDIRECTORY=ON -DCORANK_SOURCE_DIR="$root"
step "build the consumer (add_subdirectory)" cmake --build "$tmp/subdirectory"
step "run the consumer (add_subdirectory)" "$tmp/subdirectory/consumer"
if ((with_nccl)); then
  step "run consumer_nccl (add_subdirectory)" "$tmp/subdirectory/consumer_nccl"
fi

echo "package test passed: find_package(corank) and add_subdirectory consumers built and ran"
