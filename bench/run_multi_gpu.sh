#!/usr/bin/env bash
# The multi-GPU verification of the distributed forms (issue #26) on one host with two or more
# GPUs, in one go, logs under $LOGS: the NCCL form's tests on every GPU, the in-process
# distributed tests, the NCCL benchmark at 2^30 int64 keys per input, the Python package's Dask
# tests with one worker per GPU, and the Dask benchmark on the same data as the NCCL one.
#
#   bash bench/run_multi_gpu.sh [STEP ...]     steps: tests bench python dask-bench sanitize
#                                              (default: all but sanitize, in that order)
# Environment:
#   LOGS=DIR     where the logs and JSON rows go (default: multi-gpu-logs)
#   BIN=DIR      the binaries corank_gpu_nccl_tests, corank_gpu_distributed_tests and
#                corank_nccl_bench, built already (a machine without a GPU can build them), or
#                built there now where they are missing (default build-multi-gpu/bin: CMake,
#                Ninja, and the CUDA toolkit with its NCCL)
#   WHEELS=DIR   wheels to install offline first (Dask, distributed, dask-cuda and their
#                dependencies; a corank wheel among them is installed as the package);
#                else pip builds and installs .[dask] from PyPI
#   LOG2=30      2^LOG2 keys per input in the benchmarks (split over the GPUs for NCCL)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): the machines this was written for require it.
# Each step runs under `timeout`, so a hang ends the step, not the script; the exit status is
# the number of failed steps.
set -uo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
LOGS=${LOGS:-multi-gpu-logs}
LOG2=${LOG2:-30}
BIN=${BIN:-build-multi-gpu/bin}
WHEELS=${WHEELS:-}
export LOGS LOG2 BIN WHEELS
mkdir -p "$LOGS"
steps=("$@")
((${#steps[@]})) || steps=(tests bench python dask-bench)
failed=0
gpus=$(nvidia-smi -L | wc -l)

step() {  # step NAME SECONDS COMMAND...: runs it (a command or a function of this script), its
          # output to $LOGS/NAME.log, and says how it went
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS
  if declare -F "$1" >/dev/null; then
    timeout "$seconds" bash -c "$(declare -f "$1"); $1" >"$LOGS/$name.log" 2>&1
  else
    timeout "$seconds" "$@" >"$LOGS/$name.log" 2>&1
  fi
  local rc=$?
  echo "$name: exit $rc in $((SECONDS - start)) s" | tee -a "$LOGS/steps.txt"
  ((rc == 0)) || failed=$((failed + 1))
}

build() {
  cmake -S . -B build-multi-gpu -G Ninja -DCORANK_BUILD_BENCH=ON -DCORANK_BUILD_CLI=OFF \
    -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$(realpath -m "$BIN")" &&
    cmake --build build-multi-gpu -j "$(nproc)" --target corank_gpu_nccl_tests corank_gpu_distributed_tests corank_nccl_bench
}

python_package() {
  if [[ -n "${WHEELS:-}" ]]; then
    # --no-deps: the machine's own NumPy, CuPy and pandas stay; bokeh (the dashboard) is left out.
    python3 -m pip install -q --no-index --no-deps "$WHEELS"/*.whl || return 1
  else
    python3 -m pip install -q ".[dask]" || return 1
  fi
  python3 -c "import corank, dask, distributed; print('corank', corank.__file__, 'dask', dask.__version__)"
}

{ nvidia-smi; nvidia-smi topo -m; } >"$LOGS/machine.txt" 2>&1
echo "$gpus GPUs; steps: ${steps[*]}" | tee "$LOGS/steps.txt"
for s in "${steps[@]}"; do
  case $s in
    tests)
      [[ -x $BIN/corank_nccl_bench ]] || step build 900 build
      step nccl-tests 240 "$BIN/corank_gpu_nccl_tests"
      step distributed-tests 300 "$BIN/corank_gpu_distributed_tests" ;;
    bench)
      # 2^LOG2 per input: 2^(LOG2 - log2 gpus) per rank; a smaller size too, for the trend.
      per_rank=$((LOG2 - $(python3 -c "import math; print(int(math.log2($gpus)))")))
      for op in merge set_union; do
        for spread in uniform shifted disjoint; do
          step "nccl-bench-$op-$spread" 120 "$BIN/corank_nccl_bench" --log2 "$((per_rank - 4)),$per_rank" \
            --op "$op" --spread "$spread" --runs 11 --json "$LOGS/nccl-bench.json"
        done
      done ;;
    python)
      step python-install 600 python_package
      step dask-gpu-tests 300 python3 -m pytest -q -rs python/tests/test_dask_gpu.py ;;
    dask-bench)
      step "dask-bench" 300 python3 bench/python/bench_dask.py --log2 "$LOG2" --chunks 16 --gpus "$gpus" \
        --ops merge,set_union --repeat 5 --json "$LOGS/dask-bench.json" ;;
    sanitize)
      # Each tool alone (tools sharing the GPUs report each other's work), on the several-rank
      # tests and their rank processes. NCCL's probing of its own kernels is an API error, not
      # corank's; racecheck reports hazards inside NCCL's own ncclDevKernel_SendRecv (it does
      # not model NCCL's flags), so its step fails: read its log for corank's kernels.
      for tool in memcheck racecheck synccheck initcheck; do
        extra=()
        [[ $tool == memcheck ]] && extra=(--report-api-errors no)
        [[ $tool == racecheck ]] && extra=(--print-limit 1000)
        step "sanitize-$tool" 240 env CORANK_TEST_QUICK=1 compute-sanitizer --tool "$tool" "${extra[@]}" \
          --target-processes all --error-exitcode 1 "$BIN/corank_gpu_nccl_tests" --gtest_filter='NcclAllGpus*'
      done ;;
    *) echo "unknown step $s (tests bench python dask-bench sanitize)" >&2; exit 2 ;;
  esac
done
exit "$failed"
