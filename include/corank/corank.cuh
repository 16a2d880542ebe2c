#pragma once
// Everything corank offers on the GPU and the CPU.

#include <corank/check_sorted.cuh>
#include <corank/balanced_path.hpp>
#include <corank/co_rank.hpp>
#include <corank/comparators.hpp>
#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/merge.hpp>
#include <corank/host/merge_runs.hpp>
#include <corank/host/operation.hpp>
#include <corank/host/segmented.hpp>
#include <corank/host/segmented_operation.hpp>
#include <corank/host/set_operations.hpp>
#include <corank/host/sort.hpp>
#include <corank/memory.hpp>
#include <corank/merge.cuh>
#include <corank/merge_runs.cuh>
#include <corank/op.hpp>
#include <corank/operation.cuh>
#include <corank/segmented.cuh>
#include <corank/segmented_operation.cuh>
#include <corank/segmented_path.hpp>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>
#include <corank/set_operations.cuh>
#include <corank/sort.cuh>
