#!/usr/bin/env bash
# Tuning sweep: rebuilds a benchmark with each (threads per block, items per thread)
# candidate and runs it, so the winners can go into the table of include/corank/tuning.hpp.
# Needs a GPU.
#   bench/sweep.sh [--partitioned | --set-ops] "128x15 256x7 ..." [bench args...]
# Each candidate replaces one row of the table through the one override, CORANK_TUNE
# (tuning.hpp): without a flag the streaming merges' row (tiled and circular); with
# --partitioned, the partitioned merges' row; with --set-ops, the balanced-path ops' row
# (measured with the set-operations benchmark).
# Each candidate is built in build-sweep/TxI (in parallel), then run one after another.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
kind=streaming_merge
bench=corank_merge_bench
default_args=(--types i32,i32:i32 --min-log 24 --max-log 28 --log-step 4 --impls tiled,circular)
case "${1:-}" in
  --partitioned) kind=partitioned_merge; shift ;;
  --set-ops)
    kind=balanced_path
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
  (cmake -S . -B "build-sweep/$c" -G Ninja -DCORANK_BUILD_TESTS=OFF -DCORANK_BUILD_CLI=OFF -DCORANK_BUILD_BENCH=ON \
      -DCMAKE_CUDA_FLAGS="-DCORANK_TUNE=$kind,$t,$i" > /dev/null &&
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
