// The set-operations benchmark: corank's set_union, set_intersection, set_difference and
// set_symmetric_difference (two-phase corank::device forms, strategies naive and
// partitioned) against thrust::set_* and a device-to-device copy of the same bytes, in one
// process, for int32 keys, int64 keys and int32 keys with int32 values (the _by_key forms;
// int64 keys with int64 values on request), at 2^16 .. 2^28 elements per input (2^1 .. 2^30
// can be asked for) and five input shapes; corank's convenience forms (corank::set_*
// [_by_key]) beside the two-phase form they wrap. RESULTS.md has the command.
//
// Only naive and partitioned are measured: for set operations (output size known only
// after the fact) strategy::tiled, ::circular and ::partitioned all run the persistent tile
// kernel; naive runs a block per tile (docs/design.md, section 5).
//
// How it measures (the harness is harness.hpp, the report
// report.hpp, both shared with merge_bench.cu):
//  - bytes = (m + n + out) * (key [+ value] size): the inputs read once, the output (out
//    elements) written once. `out` is the operation's output size, read back once per case
//    outside the timing (Thrust's, which corank's device-side count must equal). The copy
//    row moves the same bytes: one cudaMemcpyAsync of bytes / 2, so it is per operation.
//  - every run is bracketed by CUDA events; the table gives the median of the timed runs,
//    after warm-up runs. Before every run, outside the events, a kernel reads a scratch
//    buffer of max(128 MiB, 3 x L2), so no run finds its data in L2. Working sets that fit
//    in twice the L2 also rotate over two buffer sets.
//  - inputs: m = 2^k sorted keys in A, generated on the device (a hash of the index, then a
//    radix sort), with different seeds for A and B. "heavy": n = m, uniform over [0, n/2), so
//    a key occurs about twice in each input and most keys are in both (many duplicates and
//    matches); "few": n = m, uniform 30-bit keys, so few matches (a fraction of about
//    1 - exp(-n / 2^30) of B's keys occur in A: 0.006% at 2^16, 1.6% at 2^24, 22% at 2^28);
//    "skewed": n = m / 64, both uniform over [0, m), so about 63% of B's keys occur in A and
//    most of the walk is through A alone; "runs": n = m, 64 distinct keys, so runs of about
//    m / 64 equal keys per input (longer than a tile from 2^18), matched run against run;
//    "disjoint": n = m, A's keys uniform over [0, 2^29), B's over [2^29, 2^30), so every tile
//    but one copies one input (as where sorted columns are appended).
//    Values are the element's origin (A's i-th: i, B's j-th: m + j), so comparing values
//    also checks which copies of a repeated key were kept.
//  - every implementation's output (size, keys, values) is checked once per case against
//    Thrust's, after the output was overwritten with a pattern and corank's device count
//    with -1. Thrust's own output is checked to be sorted (by key and origin), within the
//    operation's size bounds, and its four sizes to agree with each other
//    (|A u B| = m + n - |A n B|, |A - B| = m - |A n B|, |A ^ B| = |A u B| - |A n B|).
//  - corank's two-phase rows get preallocated temporary storage. Thrust allocates its own
//    (cudaMalloc/cudaFree) and synchronizes inside every call to read its output size back;
//    that time is part of its measurement, as it is part of a Thrust user's.
//  - the convenience row calls corank::set_*[_by_key] as a user does: it allocates its
//    storage, copies the output size back and synchronizes to return the output end. It is
//    timed from idle (harness.hpp, measure): the host waits for the flush, so the call's host
//    time before its first launch is inside the events, not hidden behind the flush.
//    --from-idle times every row so; the line under the convenience row gives its time less
//    the partitioned row's (strategy::automatic runs partitioned's kernel), in us.

#include "harness.hpp"
#include "report.hpp"

#include <corank/set_operations.cuh>

#include <thrust/execution_policy.h>
#include <thrust/pair.h>
#include <thrust/set_operations.h>

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank_bench;

// ---------------------------------------------------------------------------------------
// Options

// convenience last: its line compares it with rows measured before it.
enum class impl_kind { copy, thrust, naive, partitioned, convenience };
constexpr impl_kind all_impls[] = {impl_kind::copy, impl_kind::thrust, impl_kind::naive, impl_kind::partitioned,
                                   impl_kind::convenience};

const char* to_string(impl_kind kind) {
  switch (kind) {
    case impl_kind::copy: return "copy";
    case impl_kind::thrust: return "thrust";
    case impl_kind::naive: return "naive";
    case impl_kind::partitioned: return "partitioned";
    case impl_kind::convenience: return "convenience";
  }
  return "?";
}

enum class set_op { set_union, set_intersection, set_difference, set_symmetric_difference };
constexpr set_op all_ops[] = {set_op::set_union, set_op::set_intersection, set_op::set_difference,
                              set_op::set_symmetric_difference};

const char* to_string(set_op op) {
  switch (op) {
    case set_op::set_union: return "union";
    case set_op::set_intersection: return "intersection";
    case set_op::set_difference: return "difference";
    case set_op::set_symmetric_difference: return "symdiff";
  }
  return "?";
}

const char* corank_name(set_op op, bool by_key) {
  switch (op) {
    case set_op::set_union: return by_key ? "corank::device::set_union_by_key" : "corank::device::set_union";
    case set_op::set_intersection:
      return by_key ? "corank::device::set_intersection_by_key" : "corank::device::set_intersection";
    case set_op::set_difference:
      return by_key ? "corank::device::set_difference_by_key" : "corank::device::set_difference";
    case set_op::set_symmetric_difference:
      return by_key ? "corank::device::set_symmetric_difference_by_key" : "corank::device::set_symmetric_difference";
  }
  return "?";
}

// The inputs' shape (see the top of this file).
enum class input_shape { heavy, few, skewed, runs, disjoint };
constexpr input_shape all_shapes[] = {input_shape::heavy, input_shape::few, input_shape::skewed, input_shape::runs,
                                      input_shape::disjoint};

const char* to_string(input_shape shape) {
  switch (shape) {
    case input_shape::heavy: return "heavy";
    case input_shape::few: return "few";
    case input_shape::skewed: return "skewed";
    case input_shape::runs: return "runs";
    case input_shape::disjoint: return "disjoint";
  }
  return "?";
}

struct options : common_options {
  options() { runs = 30; }
  std::vector<set_op> ops{std::begin(all_ops), std::end(all_ops)};
  std::vector<input_shape> shapes{std::begin(all_shapes), std::end(all_shapes)};
  std::vector<impl_kind> impls{std::begin(all_impls), std::end(all_impls)};
};

// The shared flags' help is in harness.hpp.
const std::string usage_text = std::string(R"(usage: corank_set_ops_bench [options]

Times multiset union, intersection, difference and symmetric difference of two sorted
inputs, 2^k elements in A (and in B but for the skewed shape): corank (two-phase
corank::device::set_*[_by_key], strategies naive and partitioned; tiled and circular run the
same kernel as partitioned for set operations; the convenience form corank::set_*[_by_key]),
thrust::set_*[_by_key] and a device-to-device copy of the same bytes. Outputs are checked
against Thrust's.

options:
)") + sizes_and_types_help + R"(  --ops LIST        comma-separated: union, intersection, difference, symdiff
                    (also: symmetric_difference, set_union, ...) (default all four)
  --shapes LIST     comma-separated: heavy (m = n, keys uniform over [0, n/2):
                    many duplicates and matches), few (m = n, uniform 30-bit keys:
                    few matches), skewed (n = m / 64, keys uniform over [0, m)),
                    runs (m = n, 64 distinct keys: runs of m / 64 equal keys),
                    disjoint (m = n, A's keys in [0, 2^29), B's in [2^29, 2^30))
                    (--overlap is another name for it)  (default all five)
  --impls LIST      comma-separated: naive, partitioned, convenience
                    (copy and thrust always run: they are the baselines; convenience
                    brings partitioned, which it is compared with) (default all)
)" + from_idle_help + graph_help + R"(  --runs N          timed runs per measurement; fewer above 2^24:
                    N/2 at 2^25..2^26, N/4 at 2^27..2^28, never below min(N, 10)
                                                                 (default 30)
)" + last_options_help;

options parse_options(int argc, char** argv) {
  return parse_command_line<options>(argc, argv, usage_text, 30, [](options& opt, const std::string& flag, auto next) {
    if (flag == "--ops") {
      std::vector<set_op> chosen;
      for (const std::string& name : split_commas(next())) {
        if (name == "union" || name == "set_union") {
          chosen.push_back(set_op::set_union);
        } else if (name == "intersection" || name == "set_intersection") {
          chosen.push_back(set_op::set_intersection);
        } else if (name == "difference" || name == "set_difference") {
          chosen.push_back(set_op::set_difference);
        } else if (name == "symdiff" || name == "symmetric_difference" || name == "set_symmetric_difference") {
          chosen.push_back(set_op::set_symmetric_difference);
        } else {
          throw usage_error(
              fmt::format("--ops: unknown operation '{}' (union, intersection, difference, symdiff)", name));
        }
      }
      opt.ops = in_order(chosen, all_ops);
      if (opt.ops.empty()) throw usage_error("--ops: empty list");
    } else if (flag == "--shapes" || flag == "--overlap") {
      const std::vector<input_shape> chosen = named_items(next(), all_shapes, flag.c_str(), "shape",
                                                          " (heavy, few, skewed, runs)");
      if (chosen.empty()) throw usage_error(flag + ": empty list");
      opt.shapes = in_order(chosen, all_shapes);
    } else if (flag == "--impls") {
      std::vector<impl_kind> chosen{impl_kind::copy, impl_kind::thrust};
      for (impl_kind kind :
           named_items(next(), all_impls, "--impls", "implementation", " (naive, partitioned, convenience)")) {
        chosen.push_back(kind);
        // The two-phase strategy the convenience form resolves to.
        if (kind == impl_kind::convenience) chosen.push_back(impl_kind::partitioned);
      }
      opt.impls = in_order(chosen, all_impls);
    } else {
      return false;
    }
    return true;
  });
}

// ---------------------------------------------------------------------------------------
// Results: the table's columns and the JSON file's fields (the rest is report.hpp's)

// A row of the table (report.hpp), of one operation.
struct set_op_row : result_row {
  using result_row::result_row;
  std::string op;
  index_t output_elements = 0;
  double bytes = 0;
};

constexpr const char* row_format = "{:<12} {:<8} {:<7} {:>4} {:>11} {:>11}  {:<11} {:>4} {:>11.4f} {:>9.1f} {:>7.1f} {:>9.3f}  {}\n";

void print_table_header() {
  fmt::print("{:<12} {:<8} {:<7} {:>4} {:>11} {:>11}  {:<11} {:>4} {:>11} {:>9} {:>7} {:>9}  {}\n", "op", "type",
             "shape", "log2", "elems/input", "out elems", "impl", "runs", "median ms", "GB/s", "% copy", "vs Thrust",
             "check");
  std::fflush(stdout);
}

void print_row(const set_op_row& r) {
  fmt::print(fmt::runtime(row_format), r.op, r.type, r.shape, r.log, r.elements_per_input, r.output_elements,
             r.impl, r.time.runs, r.time.median_ms, r.gbps, r.percent_of_copy, r.ratio_to_reference,
             r.check.rfind("FAIL", 0) == 0 ? "FAIL (see above)" : r.check);
  std::fflush(stdout);
}

std::string row_json(const set_op_row& r) {
  return fmt::format(
      "\"op\": {}, \"type\": {}, \"shape\": {}, \"log2_elements_per_input\": {}, "
      "\"elements_per_input\": {}, \"elements_b\": {}, \"output_elements\": {}, \"bytes\": {:.0f}, \"impl\": {}, \"runs\": {}, "
      "\"median_ms\": {:.6f}, \"min_ms\": {:.6f}, \"max_ms\": {:.6f}, \"gbps\": {:.3f}, "
      "\"percent_of_copy\": {:.3f}, \"ratio_to_thrust\": {:.4f}, \"check\": {}",
      json_string(r.op), json_string(r.type), json_string(r.shape), r.log, r.elements_per_input, r.elements_b,
      r.output_elements, r.bytes, json_string(r.impl), r.time.runs, r.time.median_ms, r.time.min_ms, r.time.max_ms,
      r.gbps, r.percent_of_copy, r.ratio_to_reference, json_string(r.check));
}

const report_format<set_op_row> table_format{
    print_table_header, print_row, row_json,
    "\"bytes_formula\": \"(m + n + output) * (key [+ value] size)\", \"reference\": \"thrust\""};

// ---------------------------------------------------------------------------------------
// One case: a key type (with or without values), an input shape and a size; the four
// operations run on the same inputs.

struct temp_storage {
  device_buffer corank;
  std::size_t corank_bytes = 0;
  device_buffer count;  // corank's output size (one index_t, device memory)
  index_t* d_count() const { return count.get<index_t>(); }
};

corank::strategy strategy_of(impl_kind kind) {
  return kind == impl_kind::naive ? corank::strategy::naive : corank::strategy::partitioned;
}

// One of an operation's four runner objects: keys only or by key, of corank::device (the
// two-phase form) or of corank:: (the convenience form).
template <bool Convenience, bool ByKey, class Keys, class ByKeys, class ConvenienceKeys, class ConvenienceByKeys>
const auto& runner_of(const Keys& keys, const ByKeys& by_keys, const ConvenienceKeys& convenience_keys,
                      const ConvenienceByKeys& convenience_by_keys) {
  if constexpr (Convenience) {
    if constexpr (ByKey) return convenience_by_keys;
    else return convenience_keys;
  } else {
    if constexpr (ByKey) return by_keys;
    else return keys;
  }
}

// Calls `f` with the runner object of `op` (see runner_of).
template <bool Convenience, bool ByKey, class F>
auto with_corank_runner(set_op op, F&& f) {
  switch (op) {
    case set_op::set_union: break;  // below, so that every path returns
    case set_op::set_intersection:
      return f(runner_of<Convenience, ByKey>(corank::device::set_intersection, corank::device::set_intersection_by_key,
                                             corank::set_intersection, corank::set_intersection_by_key));
    case set_op::set_difference:
      return f(runner_of<Convenience, ByKey>(corank::device::set_difference, corank::device::set_difference_by_key,
                                             corank::set_difference, corank::set_difference_by_key));
    case set_op::set_symmetric_difference:
      return f(runner_of<Convenience, ByKey>(
          corank::device::set_symmetric_difference, corank::device::set_symmetric_difference_by_key,
          corank::set_symmetric_difference, corank::set_symmetric_difference_by_key));
  }
  return f(runner_of<Convenience, ByKey>(corank::device::set_union, corank::device::set_union_by_key,
                                         corank::set_union, corank::set_union_by_key));
}

// Enqueues one corank run (or, with temp == nullptr, asks for the temporary bytes).
template <class Key, class Value>
cudaError_t corank_call(set_op op, corank::strategy strategy, const buffer_set<Key, Value>& set, void* temp,
                        std::size_t& temp_bytes, index_t* d_count, cudaStream_t stream) {
  constexpr bool pairs = buffer_set<Key, Value>::with_values;
  const Key* a = set.a_keys();
  const Key* b = set.b_keys();
  return with_corank_runner<false, pairs>(op, [&](const auto& runner) {
    if constexpr (pairs) {
      return runner(temp, temp_bytes, a, static_cast<const Value*>(set.a_values()), set.m, b,
                    static_cast<const Value*>(set.b_values()), set.n, set.out_keys(), set.out_values(), d_count,
                    corank::less{}, stream, strategy);
    } else {
      return runner(temp, temp_bytes, a, set.m, b, set.n, set.out_keys(), d_count, corank::less{}, stream,
                    strategy);
    }
  });
}

// One convenience call, as a user makes it (it allocates and synchronizes `stream`);
// returns the output size.
template <class Key, class Value>
index_t convenience_call(set_op op, const buffer_set<Key, Value>& set, cudaStream_t stream) {
  constexpr bool pairs = buffer_set<Key, Value>::with_values;
  const Key* a = set.a_keys();
  const Key* b = set.b_keys();
  Key* out = set.out_keys();
  return with_corank_runner<true, pairs>(op, [&](const auto& runner) {
    if constexpr (pairs) {
      const auto ends = runner(a, a + set.m, b, b + set.n, static_cast<const Value*>(set.a_values()),
                               static_cast<const Value*>(set.b_values()), out, set.out_values(), corank::less{},
                               stream);
      if (ends.second - set.out_values() != ends.first - out) {
        throw std::runtime_error("the convenience call's key and value ends disagree");
      }
      return index_t(ends.first - out);
    } else {
      return index_t(runner(a, a + set.m, b, b + set.n, out, corank::less{}, stream) - out);
    }
  });
}

// One Thrust call (it synchronizes `stream`): reads `input`'s inputs, writes `output`'s
// output block; returns the output size.
template <class Key, class Value>
index_t thrust_call(set_op op, const buffer_set<Key, Value>& input, const buffer_set<Key, Value>& output,
                    cudaStream_t stream) {
  const auto policy = thrust::cuda::par.on(stream);
  const Key* a = input.a_keys();
  const Key* b = input.b_keys();
  const index_t m = input.m;
  const index_t n = input.n;
  Key* out = output.out_keys();
  if constexpr (buffer_set<Key, Value>::with_values) {
    const Value* av = input.a_values();
    const Value* bv = input.b_values();
    Value* out_values = output.out_values();
    switch (op) {
      case set_op::set_union:
        return index_t(thrust::set_union_by_key(policy, a, a + m, b, b + n, av, bv, out, out_values).first - out);
      case set_op::set_intersection:
        return index_t(thrust::set_intersection_by_key(policy, a, a + m, b, b + n, av, out, out_values).first - out);
      case set_op::set_difference:
        return index_t(thrust::set_difference_by_key(policy, a, a + m, b, b + n, av, bv, out, out_values).first - out);
      case set_op::set_symmetric_difference:
        return index_t(
            thrust::set_symmetric_difference_by_key(policy, a, a + m, b, b + n, av, bv, out, out_values).first - out);
    }
  } else {
    switch (op) {
      case set_op::set_union: return index_t(thrust::set_union(policy, a, a + m, b, b + n, out) - out);
      case set_op::set_intersection: return index_t(thrust::set_intersection(policy, a, a + m, b, b + n, out) - out);
      case set_op::set_difference: return index_t(thrust::set_difference(policy, a, a + m, b, b + n, out) - out);
      case set_op::set_symmetric_difference:
        return index_t(thrust::set_symmetric_difference(policy, a, a + m, b, b + n, out) - out);
    }
  }
  return -1;
}

// Enqueues one run of `kind` on `stream`, reading and writing `set`. Returns the output
// size for Thrust and the convenience form (which read it back themselves), -1 for the
// others (the two-phase form's is in temp.d_count()). `copy_bytes`: what the copy row copies.
template <class Key, class Value>
index_t enqueue(impl_kind kind, set_op op, const buffer_set<Key, Value>& set, temp_storage& temp,
                std::size_t copy_bytes, cudaStream_t stream) {
  switch (kind) {
    case impl_kind::copy:
      BENCH_CHECK(cudaMemcpyAsync(set.output.get(), set.input.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream));
      return -1;
    case impl_kind::thrust: return thrust_call(op, set, set, stream);
    case impl_kind::convenience: return convenience_call(op, set, stream);
    case impl_kind::naive:
    case impl_kind::partitioned: {
      std::size_t bytes = temp.corank_bytes;
      const cudaError_t e = corank_call(op, strategy_of(kind), set, temp.corank.get(), bytes, temp.d_count(), stream);
      if (e != cudaSuccess) check(e, corank_name(op, buffer_set<Key, Value>::with_values));
      return -1;
    }
  }
  return -1;
}

// The size bounds of each operation's output, m and n the input sizes.
std::string check_size_bounds(set_op op, index_t count, index_t m, index_t n) {
  index_t low = 0, high = 0;
  switch (op) {
    case set_op::set_union: low = std::max(m, n), high = m + n; break;
    case set_op::set_intersection: high = std::min(m, n); break;
    case set_op::set_difference: high = m; break;
    case set_op::set_symmetric_difference: high = m + n; break;
  }
  if (count < low || count > high) {
    return fmt::format("FAIL: Thrust's output size {} is outside [{}, {}]", count, low, high);
  }
  return "OK";
}

// Thrust's output must be sorted, and with origin values sorted by (key, value) too: every
// operation keeps a run's copies in input order, A's before B's.
template <class Key, class Value>
std::string check_reference(set_op op, const buffer_set<Key, Value>& reference, index_t count, cudaStream_t stream) {
  const std::string bounds = check_size_bounds(op, count, reference.m, reference.n);
  if (bounds != "OK") return bounds;
  if (!keys_sorted(reference, count, stream)) return "FAIL: Thrust's keys are not sorted";
  if (!in_input_order(reference, count, stream)) {
    return "FAIL: Thrust's output is not in (key, origin) order (copies of a key out of input order)";
  }
  return "OK";
}

// "OK", or what differs from the reference.
template <class Key, class Value>
std::string compare_with_reference(const buffer_set<Key, Value>& set, index_t count,
                                   const buffer_set<Key, Value>& reference, index_t reference_count,
                                   cudaStream_t stream) {
  if (count != reference_count) {
    return fmt::format("FAIL: output size {}, Thrust's is {}", count, reference_count);
  }
  return compare_outputs(set, reference, count, "Thrust", stream);
}

// Adds `offset` to each of `count` keys (the disjoint shape's B: sorted still, above A's).
template <class Key>
__global__ void add_to_keys_kernel(Key* keys, index_t count, Key offset) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count; i += index_t(gridDim.x) * blockDim.x) {
    keys[i] += offset;
  }
}

// The keys' range: heavy, [0, n/2) for n elements per input; few, 30 bits; skewed, [0, m);
// runs, 64 keys; disjoint, 29 bits (B's then moved above A's: disjoint_offset).
constexpr std::uint64_t disjoint_offset = std::uint64_t(1) << 29;

std::uint64_t key_range(input_shape shape, index_t m, index_t n) {
  switch (shape) {
    case input_shape::heavy: return std::max<std::uint64_t>(1, std::uint64_t(n) / 2);
    case input_shape::few: return std::uint64_t(1) << 30;
    case input_shape::skewed: return std::max<std::uint64_t>(1, std::uint64_t(m));
    case input_shape::runs: return 64;
    case input_shape::disjoint: return disjoint_offset;
  }
  return 0;
}

template <class Key, class Value>
void run_case(bench_context& ctx, const options& opt, case_kind kind, input_shape input, int log,
              report<set_op_row>& rep) {
  using set_type = buffer_set<Key, Value>;
  constexpr bool pairs = set_type::with_values;
  const std::string type = to_string(kind);
  const std::string shape = to_string(input);
  const index_t m = index_t(1) << log;
  const index_t n = input == input_shape::skewed ? std::max<index_t>(1, m / 64) : m;
  const int runs = opt.runs_for(log);
  case_buffers<Key, Value> buffers(ctx, m, n);

  auto skip = [&](const std::string& reason) {
    rep.skip({type, shape, log, reason}, fmt::format("{:<12} {:<8} {:<7} {:>4} {:>11}", "-", type, shape, log, m));
  };

  // corank's temporary storage, the largest over the operations and both strategies; the
  // size query needs only the sizes.
  std::size_t corank_bytes = 1;  // at least one byte: a null pointer would make a run a size query
  {
    set_type probe(0, 0, false);  // no memory: sizes only
    probe.m = m;
    probe.n = n;
    for (set_op op : opt.ops) {
      for (impl_kind impl : {impl_kind::naive, impl_kind::partitioned}) {
        std::size_t bytes = 0;
        const cudaError_t e = corank_call(op, strategy_of(impl), probe, nullptr, bytes, nullptr, ctx.stream);
        if (e != cudaSuccess) check(e, corank_name(op, pairs));
        corank_bytes = std::max(corank_bytes, bytes);
      }
    }
  }
  // Thrust's temporary storage (its partitions and tile states) is of the order of corank's.
  if (const std::string shortfall = buffers.shortfall(corank_bytes); !shortfall.empty()) return skip(shortfall);

  temp_storage temp;
  try {
    buffers.allocate();
    temp.corank_bytes = corank_bytes;
    temp.corank = device_buffer(corank_bytes);
    temp.count = device_buffer(sizeof(index_t));
    buffers.generate_inputs(
        ctx, 0x5e70000000ull + std::uint64_t(kind) * 4096 + std::uint64_t(input) * 64 + std::uint64_t(log),
        key_range(input, m, n));
    if (input == input_shape::disjoint) {
      for (const set_type& set : buffers.sets) {
        add_to_keys_kernel<<<ctx.grid_for(n), 256, 0, ctx.stream>>>(set.b_keys(), n, Key(disjoint_offset));
        BENCH_CHECK(cudaPeekAtLastError());
      }
      BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
    }
  } catch (const device_memory_exhausted& e) {
    return skip(e.what());
  }
  const set_type& reference = buffers.reference;

  // Thrust's output sizes, per operation, for the consistency check at the end.
  index_t sizes[4] = {-1, -1, -1, -1};

  for (set_op op : opt.ops) {
    const std::string op_name = to_string(op);
    const std::string where = fmt::format("{} {} {} 2^{}", op_name, type, shape, log);

    // The reference: Thrust on set 0's inputs, into the reference block.
    index_t reference_count = -1;
    std::string reference_check;
    try {
      reference_count = thrust_call(op, buffers.sets[0], reference, ctx.stream);
      BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
      reference_check = check_reference(op, reference, reference_count, ctx.stream);
    } catch (const std::exception& e) {
      reference_check = fmt::format("FAIL: the Thrust reference failed: {}", e.what());
      cudaGetLastError();
    }
    if (reference_check != "OK") {
      rep.fail(fmt::format("{}: thrust", where), reference_check);
      if (reference_count < 0) continue;  // nothing to compare with, nor a byte count
    }
    sizes[int(op)] = reference_count;

    const double bytes_moved = double(m + n + reference_count) * double(set_type::element_bytes);
    const std::size_t copy_bytes = std::size_t(m + n + reference_count) * set_type::element_bytes / 2;

    // One run of `impl` on set 0, its output and count poisoned first, checked against the
    // reference; the copy row is not checked.
    auto check_run = [&](impl_kind impl) -> std::string {
      if (impl == impl_kind::copy) return "-";
      buffers.sets[0].poison_output(ctx.stream);
      BENCH_CHECK(cudaMemsetAsync(temp.count.get(), 0xff, sizeof(index_t), ctx.stream));  // -1
      index_t count = enqueue(impl, op, buffers.sets[0], temp, copy_bytes, ctx.stream);
      BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
      if (impl == impl_kind::naive || impl == impl_kind::partitioned) count = read_element(temp.d_count());
      if (impl == impl_kind::thrust && reference_check != "OK") return reference_check;
      return compare_with_reference(buffers.sets[0], count, reference, reference_count, ctx.stream);
    };

    // Measures one implementation: verify once, then time.
    auto measure_impl = [&](impl_kind impl) {
      set_op_row row(type, shape, log, m, n, to_string(impl));
      row.op = op_name;
      row.output_elements = reference_count;
      row.bytes = bytes_moved;
      auto run = [&](int s) { enqueue(impl, op, buffers.sets[std::size_t(s)], temp, copy_bytes, ctx.stream); };
      try {
        row.check = check_run(impl);
        row.from_idle = opt.from_idle || impl == impl_kind::convenience;
        // Thrust and the convenience form synchronize: they cannot be captured in a graph.
        const bool capturable = impl != impl_kind::thrust && impl != impl_kind::convenience;
        row.time = measure(ctx, buffers.count, opt.warmup, runs, run, row.from_idle, capturable ? opt.graph : 0);
        row.gbps = bytes_moved / (row.time.median_ms * 1e6);
      } catch (...) {
        row.check = failed_check();
      }
      // A bad reference was reported and counted above.
      if (row.check.rfind("FAIL", 0) == 0 && !(impl == impl_kind::thrust && row.check == reference_check)) {
        rep.fail(fmt::format("{}: {}", where, row.impl), row.check);
      }
      return row;
    };

    // strategy::automatic, the convenience form's, runs partitioned's kernel for set operations.
    rep.add_case_rows(opt.impls, impl_kind::copy, impl_kind::thrust, measure_impl, to_string(impl_kind::partitioned));
  }

  // The four sizes of one input pair must agree: with a key a times in A and b times in B,
  // max(a, b) = a + b - min(a, b), max(a - b, 0) = a - min(a, b), |a - b| = max - min.
  const index_t u = sizes[int(set_op::set_union)];
  const index_t i = sizes[int(set_op::set_intersection)];
  const index_t d = sizes[int(set_op::set_difference)];
  const index_t x = sizes[int(set_op::set_symmetric_difference)];
  if (u >= 0 && i >= 0 && (u != m + n - i || (d >= 0 && d != m - i) || (x >= 0 && x != u - i))) {
    rep.fail(fmt::format("{} {} 2^{}: thrust", type, shape, log),
             fmt::format("output sizes disagree: union {}, intersection {}, difference {}, symdiff {} "
                         "(m = {}, n = {})",
                         u, i, d, x, m, n));
  }
}

void print_method(const options& opt, const bench_context& ctx) {
  fmt::print(
      "{} bytes = (m + n + out) x (key [+ value] bytes): the inputs read once,\n"
      "         the output (out elems: the operation's output size) written once. GB/s = bytes / time. % copy =\n"
      "         copy time / time, for a device-to-device copy of bytes / 2 (the same bytes read + written).\n"
      "         vs Thrust = Thrust time / time (above 1: faster than Thrust).\n"
      "         corank: corank::device::set_*[_by_key] (two-phase), preallocated temporary storage, strategies\n"
      "         naive and partitioned (tiled and circular run partitioned's kernel for set operations).\n"
      "         thrust: thrust::set_*[_by_key] on thrust::cuda::par.on(stream); Thrust allocates its own temporary\n"
      "         storage and synchronizes inside each call (to read its output size back), which is in its time.\n"
      "         convenience: corank::set_*[_by_key] as a user calls it (allocates, synchronizes to return the\n"
      "         output end), timed from idle: the host waits for the flush before each run, so the call's host\n"
      "         time before its first launch is in the time. {}\n"
      "         The line under it: its time less partitioned's (the strategy it runs), in us.\n"
      "         Outputs (size, keys, values) checked against Thrust's once per case.\n"
      "inputs:  m = 2^log2 sorted keys in A (elems/input), generated on the device (hash of the index, radix-\n"
      "         sorted), different for A and B. heavy: n = m, uniform over [0, n/2), about 2 copies of each key per\n"
      "         input, most keys in both; few: n = m, uniform 30-bit, so a fraction of about 1 - exp(-n / 2^30) of B's\n"
      "         keys occur in A (0.006% at 2^16, 1.6% at 2^24, 22% at 2^28); skewed: n = m / 64, both uniform over\n"
      "         [0, m), about 63% of B's keys in A; runs: n = m, 64 distinct keys, runs of about m / 64 equal keys\n"
      "         per input; disjoint: n = m, A's keys uniform over [0, 2^29), B's over [2^29, 2^30).\n"
      "         Values (i32:i32, i64:i64): the element's origin (A's i-th: i,\n"
      "         B's j-th: m + j), so the check also sees which copies of a repeated key were kept.\n\n",
      timing_method(opt, ctx), from_idle_method(opt));
  std::fflush(stdout);
}

int run_bench(const options& opt) {
  bench_context ctx;
  report<set_op_row> rep(opt, ctx, table_format);
  if (!rep.begin("corank_set_ops_bench", "corank set-operations benchmark")) return 1;
  print_method(opt, ctx);
  for (case_kind kind : opt.types) {
    for (input_shape shape : opt.shapes) {
      rep.run_table(kind, [&](auto key, auto value, int log) {
        run_case<decltype(key), decltype(value)>(ctx, opt, kind, shape, log, rep);
      });
    }
  }
  return rep.end("Thrust");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, "corank_set_ops_bench", usage_text, parse_options, run_bench);
}
