#!/usr/bin/env bash
# Tuning sweep: rebuilds the merge benchmark with each (threads per block, items per thread)
# candidate and runs it, so the winners can go into policy.hpp. Needs a GPU.
#   bench/sweep.sh [--partitioned] "128x15 256x7 ..." [bench args...]
# Without --partitioned the candidates replace the streaming kernels' policy
# (CORANK_TUNE_THREADS/ITEMS: tiled, circular, and the tiles the set operations derive from
# it); with it, only strategy::partitioned's merge tiles (CORANK_TUNE_PARTITIONED_*).
# Each candidate is built in build-sweep/TxI (in parallel), then run one after another.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
macro=CORANK_TUNE
if [[ "${1:-}" == "--partitioned" ]]; then
  macro=CORANK_TUNE_PARTITIONED
  shift
fi
candidates=(${1:-"128x15 256x7 128x7 512x7"})
shift || true
args=("$@")
((${#args[@]})) || args=(--types i32,i32:i32 --min-log 24 --max-log 28 --log-step 4 --impls tiled,circular)
for c in "${candidates[@]}"; do
  t=${c%x*}; i=${c#*x}
  (cmake -S . -B "build-sweep/$c" -G Ninja -DCORANK_BUILD_TESTS=OFF -DCORANK_BUILD_CLI=OFF \
      -DCMAKE_CUDA_FLAGS="-D${macro}_THREADS=$t -D${macro}_ITEMS=$i" > /dev/null &&
   cmake --build "build-sweep/$c" --target corank_merge_bench > "build-sweep/$c.log" 2>&1 ||
   echo "candidate $c failed to build (see build-sweep/$c.log)") &
done
wait
for c in "${candidates[@]}"; do
  echo "=== threads x items = $c"
  "build-sweep/$c/bench/corank_merge_bench" "${args[@]}" | grep -E "^(type|i32|i64)" | grep -vE " copy |thrust"
done
