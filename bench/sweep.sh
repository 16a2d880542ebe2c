#!/usr/bin/env bash
# Tuning sweep: rebuilds a benchmark with each (threads per block, items per thread)
# candidate and runs it, so the winners can go into policy.hpp. Needs a GPU.
#   bench/sweep.sh [--partitioned | --set-ops] "128x15 256x7 ..." [bench args...]
# Without a flag the candidates replace the streaming kernels' policy (CORANK_TUNE_THREADS/
# ITEMS: tiled and circular merges); with --partitioned, only strategy::partitioned's merge
# tiles (CORANK_TUNE_PARTITIONED_*); with --set-ops, only the set operations' tiles
# (CORANK_TUNE_SET_*, measured with the set-operations benchmark).
# Each candidate is built in build-sweep/TxI (in parallel), then run one after another.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
macro=CORANK_TUNE
bench=corank_merge_bench
default_args=(--types i32,i32:i32 --min-log 24 --max-log 28 --log-step 4 --impls tiled,circular)
case "${1:-}" in
  --partitioned) macro=CORANK_TUNE_PARTITIONED; shift ;;
  --set-ops)
    macro=CORANK_TUNE_SET
    bench=corank_set_ops_bench
    default_args=(--types i32 --min-log 24 --max-log 28 --log-step 4 --impls partitioned)
    shift ;;
esac
candidates=(${1:-"128x15 256x7 128x7 512x7"})
shift || true
args=("$@")
((${#args[@]})) || args=("${default_args[@]}")
for c in "${candidates[@]}"; do
  t=${c%x*}; i=${c#*x}
  (cmake -S . -B "build-sweep/$c" -G Ninja -DCORANK_BUILD_TESTS=OFF -DCORANK_BUILD_CLI=OFF \
      -DCMAKE_CUDA_FLAGS="-D${macro}_THREADS=$t -D${macro}_ITEMS=$i" > /dev/null &&
   cmake --build "build-sweep/$c" --target "$bench" > "build-sweep/$c.log" 2>&1 ||
   echo "candidate $c failed to build (see build-sweep/$c.log)") &
done
wait
for c in "${candidates[@]}"; do
  echo "=== threads x items = $c"
  if [[ $bench == corank_merge_bench ]]; then
    "build-sweep/$c/bench/$bench" "${args[@]}" | grep -E "^(type|i32|i64)" | grep -vE " copy |thrust"
  else
    "build-sweep/$c/bench/$bench" "${args[@]}" | grep -E "^op | (naive|partitioned) "
  fi
done
