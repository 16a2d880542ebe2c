// corank's segmented merge and set operations against CUB's segmented sort, a loop of
// corank's two-input calls and a device-to-device copy, in one process on one device.
//
//   corank_segmented_bench [--max-log 28 | --logs 24,28] [--runs 11] [--json FILE] [--quick]
//                          [--corank-only] [--ops merge,merge_by_key,...]
//                          [--shapes 16,256,4096,power-law,half-empty]
//
// 2^24 and 2^max-log elements in all (A and B together), int32 keys, and int32 keys with
// int32 values for merge_by_key and set_union_by_key, in segment pairs of these lengths (a
// pair's A and B halves together): all 16, all 256, all 4096, power-law (lengths falling as
// 1/rank, a few segments holding most of the data) and half empty (empty pairs between pairs
// of 32). Keys are random in [0, length), sorted per segment (so the set operations match
// about half of them).
// Rows: corank's two-phase segmented call (temporary storage allocated once); (a)
// cub::DeviceSegmentedSort of each pair concatenated (merge: StableSortKeys/Pairs; set
// operations: then a flag of each run's first key and cub::DeviceSelect::Flagged, the
// compaction a user would write after it, which computes a distinct union: a lower bound on a
// real multiset pipeline); (b) for length 4096, corank's two-input call per segment, in a
// host loop; (c) Thrust's call on composite 64-bit keys (segment << 32 | key, built before
// the timing): the workaround a user writes in two lines (merges and set_union); (d) the copy
// of the keys (and values). % of copy: copy time / time, for the same bytes read and written.
// Every timed run after an L2 flush; median of --runs. The merges' outputs and offsets are
// checked against CUB's segmented sort (a MISMATCH line, and exit status 1).
// --quick (for tuning runs): 2^max-log only, lengths 16, 4096 and power-law, merge and
// set_union, corank and the copy only. --corank-only (before/after runs): corank and the copy
// only, every op and shape asked for (no check of the merges' outputs, which needs CUB's row).

#include <corank/merge.cuh>
#include <corank/segmented.cuh>
#include <corank/set_operations.cuh>

#include "harness.hpp"
#include "report.hpp"

#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>
#include <thrust/set_operations.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace corank_bench;
using offset_t = std::int64_t;

struct options {
  int max_log = 28;
  int runs = 11;
  std::string json_path;
  bool quick = false;
  bool baselines = true;  // CUB's, Thrust's and the loop's rows (off with --quick, --corank-only)
  std::vector<std::string> ops;  // empty: every op
};

std::vector<std::string> json_rows;
bool mismatch = false;

// The segment pairs' lengths (A's half, B's half) for a shape, in all `total` elements.
struct layout {
  std::vector<offset_t> a, b, concatenated;  // S + 1 offsets each
  index_t segments() const { return index_t(a.size()) - 1; }
};

layout make_layout(const std::string& shape, index_t total) {
  std::vector<index_t> pair_lengths;
  if (shape == "power-law") {
    // Lengths proportional to 1/rank over 2^(log - 6) pairs: the first few hold most of it.
    const index_t count = std::max<index_t>(1, total >> 6);
    double sum = 0;
    for (index_t s = 0; s < count; ++s) sum += 1.0 / double(s + 1);
    index_t used = 0;
    for (index_t s = 0; s < count; ++s) {
      const index_t length = index_t(double(total) / (double(s + 1) * sum));
      pair_lengths.push_back(length);
      used += length;
    }
    pair_lengths[0] += total - used;
  } else if (shape == "half empty") {
    for (index_t used = 0; used < total; used += 32) {
      pair_lengths.push_back(0);
      pair_lengths.push_back(std::min<index_t>(32, total - used));
    }
  } else {
    const index_t length = std::stoll(shape);
    for (index_t used = 0; used < total; used += length) pair_lengths.push_back(std::min(length, total - used));
  }
  layout l;
  l.a = {0};
  l.b = {0};
  l.concatenated = {0};
  for (const index_t length : pair_lengths) {
    l.a.push_back(l.a.back() + length / 2);
    l.b.push_back(l.b.back() + (length - length / 2));
    l.concatenated.push_back(l.concatenated.back() + length);
  }
  return l;
}

// keys[i] random in [0, length of its segment pair), for the segmented sort to order.
__global__ void segment_keys_kernel(std::int32_t* keys, const offset_t* offsets, index_t segments, index_t count,
                                    std::uint64_t seed) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count; i += index_t(gridDim.x) * blockDim.x) {
    index_t low = 0, high = segments - 1;  // the segment of i: the last that starts at or before it
    while (low < high) {
      const index_t mid = (low + high + 1) / 2;
      if (offsets[mid] <= i) low = mid; else high = mid - 1;
    }
    const index_t length = offsets[low + 1] - offsets[low];
    keys[i] = std::int32_t(index_hash(seed, i) % std::uint64_t(length > 0 ? length : 1));
  }
}

// composite[i] = segment << 32 | keys[i], for Thrust's calls on composite keys.
__global__ void composite_keys_kernel(const std::int32_t* keys, const offset_t* offsets, index_t segments,
                                      index_t count, std::uint64_t* composite) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count; i += index_t(gridDim.x) * blockDim.x) {
    index_t low = 0, high = segments - 1;
    while (low < high) {
      const index_t mid = (low + high + 1) / 2;
      if (offsets[mid] <= i) low = mid; else high = mid - 1;
    }
    composite[i] = std::uint64_t(low) << 32 | std::uint32_t(keys[i]);
  }
}

__global__ void first_of_run_kernel(const std::int32_t* keys, const offset_t* starts, index_t segments, index_t count,
                                    unsigned char* flags) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count; i += index_t(gridDim.x) * blockDim.x) {
    flags[i] = i == 0 || keys[i] != keys[i - 1];
  }
}

template <class T>
device_buffer upload(const std::vector<T>& host) {
  device_buffer d(host.size() * sizeof(T));
  BENCH_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// Sorted random keys for each segment of `offsets`, `count` in all.
device_buffer sorted_segments(bench_context& ctx, const device_buffer& offsets, index_t segments, index_t count,
                              std::uint64_t seed) {
  device_buffer keys(std::max<index_t>(1, count) * sizeof(std::int32_t)), sorted(keys.bytes());
  if (count == 0) return sorted;
  segment_keys_kernel<<<ctx.grid_for(count), 256, 0, ctx.stream>>>(keys.get<std::int32_t>(), offsets.get<offset_t>(),
                                                                   segments, count, seed);
  std::size_t bytes = 0;
  BENCH_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, keys.get<std::int32_t>(), sorted.get<std::int32_t>(),
                                                 count, segments, offsets.get<offset_t>(), offsets.get<offset_t>() + 1,
                                                 ctx.stream));
  device_buffer temp(bytes);
  BENCH_CHECK(cub::DeviceSegmentedSort::SortKeys(temp.get(), bytes, keys.get<std::int32_t>(),
                                                 sorted.get<std::int32_t>(), count, segments, offsets.get<offset_t>(),
                                                 offsets.get<offset_t>() + 1, ctx.stream));
  BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  return sorted;
}

struct row {
  std::string name;
  double ms = 0;
};

template <class Run>
double time_runs(bench_context& ctx, int runs, Run run) {
  return measure(ctx, 1, 2, runs, [&](int) { run(); }).median_ms;
}

void print_rows(const std::string& op, const std::string& shape, int log, index_t segments, double copy,
                const std::vector<row>& rows) {
  fmt::print("{} 2^{} in {} segments ({}):\n", op, log, segments, shape);
  for (const row& r : rows) {
    if (r.ms <= 0) continue;
    fmt::print("  {:<52} {:>9.3f} ms {:>6.1f}% of copy   corank x{:.2f}\n", r.name, r.ms, 100.0 * copy / r.ms,
               r.ms / rows.front().ms);
    json_rows.push_back(fmt::format(
        "{{\"op\": {}, \"shape\": {}, \"log2_elements\": {}, \"segments\": {}, \"impl\": {}, \"median_ms\": {:.6f}, "
        "\"percent_of_copy\": {:.1f}, \"corank_speedup\": {:.3f}}}",
        json_string(op), json_string(shape), log, segments, json_string(r.name), r.ms, 100.0 * copy / r.ms,
        r.ms / rows.front().ms));
  }
}

enum class kind { merge, merge_by_key, set_union, set_intersection, set_difference, set_union_by_key };

const char* name_of(kind k) {
  switch (k) {
    case kind::merge: return "merge";
    case kind::merge_by_key: return "merge_by_key";
    case kind::set_union: return "set_union";
    case kind::set_intersection: return "set_intersection";
    case kind::set_difference: return "set_difference";
    case kind::set_union_by_key: return "set_union_by_key";
  }
  return "?";
}

void bench_case(bench_context& ctx, const options& opt, int log, const std::string& shape) {
  const index_t total = index_t(1) << log;
  const layout l = make_layout(shape, total);
  const index_t segments = l.segments(), m = l.a.back(), n = l.b.back();
  const device_buffer a_offsets = upload(l.a), b_offsets = upload(l.b), c_offsets = upload(l.concatenated);
  const device_buffer a = sorted_segments(ctx, a_offsets, segments, m, 1), b = sorted_segments(ctx, b_offsets, segments, n, 2);
  // The concatenation, for the segmented sort: each pair's A half, then its B half.
  device_buffer concatenated(total * sizeof(std::int32_t));
  if (opt.baselines) {
    std::vector<std::int32_t> ha(m), hb(n), hc(total);
    BENCH_CHECK(cudaMemcpy(ha.data(), a.get(), m * 4, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(hb.data(), b.get(), n * 4, cudaMemcpyDeviceToHost));
    for (index_t s = 0; s < segments; ++s) {
      std::copy(ha.begin() + l.a[s], ha.begin() + l.a[s + 1], hc.begin() + l.concatenated[s]);
      std::copy(hb.begin() + l.b[s], hb.begin() + l.b[s + 1], hc.begin() + l.concatenated[s] + (l.a[s + 1] - l.a[s]));
    }
    BENCH_CHECK(cudaMemcpy(concatenated.get(), hc.data(), total * 4, cudaMemcpyHostToDevice));
  }
  device_buffer values(total * 4), out(total * 4), out_values(total * 4), out_offsets((segments + 1) * 8),
      count(sizeof(index_t)), flags(total), sorted(total * 4), sorted_values(total * 4);
  BENCH_CHECK(cudaMemset(values.get(), 0, total * 4));
  const auto* ka = a.get<const std::int32_t>();
  const auto* kb = b.get<const std::int32_t>();
  const auto* ao = a_offsets.get<const offset_t>();
  const auto* bo = b_offsets.get<const offset_t>();
  auto* ko = out.get<std::int32_t>();
  auto* oo = out_offsets.get<offset_t>();
  auto* c = count.get<index_t>();
  const auto* va = values.get<const std::int32_t>();
  const auto* vb = va + m;
  auto* vo = out_values.get<std::int32_t>();
  // Composite keys for Thrust's rows, built once per case.
  device_buffer composite_a(std::max<index_t>(1, m) * 8), composite_b(std::max<index_t>(1, n) * 8),
      composite_out(std::max<index_t>(1, total) * 8);
  if (opt.baselines) {
    if (m > 0) {
      composite_keys_kernel<<<ctx.grid_for(m), 256, 0, ctx.stream>>>(ka, ao, segments, m,
                                                                     composite_a.get<std::uint64_t>());
    }
    if (n > 0) {
      composite_keys_kernel<<<ctx.grid_for(n), 256, 0, ctx.stream>>>(kb, bo, segments, n,
                                                                     composite_b.get<std::uint64_t>());
    }
    BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  }

  for (const kind k : {kind::merge, kind::merge_by_key, kind::set_union, kind::set_intersection,
                       kind::set_difference, kind::set_union_by_key}) {
    if (opt.quick && k != kind::merge && k != kind::set_union) continue;
    if (!opt.ops.empty() && std::find(opt.ops.begin(), opt.ops.end(), name_of(k)) == opt.ops.end()) continue;
    const bool with_values = k == kind::merge_by_key || k == kind::set_union_by_key;
    const bool is_merge = k == kind::merge || k == kind::merge_by_key;
    // corank's call, two-phase: a query, then runs on storage allocated once.
    auto corank_call = [&](void* temp, std::size_t& bytes) -> cudaError_t {
      switch (k) {
        case kind::merge:
          return corank::device::segmented_merge(temp, bytes, ka, m, ao, kb, n, bo, segments, ko, oo, c, corank::less{},
                                                 ctx.stream);
        case kind::merge_by_key:
          return corank::device::segmented_merge_by_key(temp, bytes, ka, va, m, ao, kb, vb, n, bo, segments, ko, vo, oo,
                                                        c, corank::less{}, ctx.stream);
        case kind::set_union:
          return corank::device::segmented_set_union(temp, bytes, ka, m, ao, kb, n, bo, segments, ko, oo, c,
                                                     corank::less{}, ctx.stream);
        case kind::set_intersection:
          return corank::device::segmented_set_intersection(temp, bytes, ka, m, ao, kb, n, bo, segments, ko, oo, c,
                                                            corank::less{}, ctx.stream);
        case kind::set_difference:
          return corank::device::segmented_set_difference(temp, bytes, ka, m, ao, kb, n, bo, segments, ko, oo, c,
                                                          corank::less{}, ctx.stream);
        case kind::set_union_by_key:
          return corank::device::segmented_set_union_by_key(temp, bytes, ka, va, m, ao, kb, vb, n, bo, segments, ko,
                                                            vo, oo, c, corank::less{}, ctx.stream);
      }
      return cudaErrorInvalidValue;
    };
    std::size_t temp_bytes = 0;
    BENCH_CHECK(corank_call(nullptr, temp_bytes));
    device_buffer temp(temp_bytes);
    std::vector<row> rows;
    rows.push_back({"corank segmented", time_runs(ctx, opt.runs, [&] { BENCH_CHECK(corank_call(temp.get(), temp_bytes)); })});

    // (a) CUB's segmented sort of the concatenated pairs (and, for set operations, the flag
    // and the compaction).
    if (opt.baselines) {
      const auto* co = c_offsets.get<const offset_t>();
      auto sort_call = [&](void* t, std::size_t& bytes) {
        return with_values
                   ? cub::DeviceSegmentedSort::StableSortPairs(t, bytes, concatenated.get<const std::int32_t>(),
                                                               sorted.get<std::int32_t>(), va, sorted_values.get<std::int32_t>(),
                                                               total, segments, co, co + 1, ctx.stream)
                   : cub::DeviceSegmentedSort::StableSortKeys(t, bytes, concatenated.get<const std::int32_t>(),
                                                              sorted.get<std::int32_t>(), total, segments, co, co + 1,
                                                              ctx.stream);
      };
      std::size_t sort_bytes = 0, select_bytes = 0;
      BENCH_CHECK(sort_call(nullptr, sort_bytes));
      BENCH_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, sorted.get<const std::int32_t>(),
                                             flags.get<const unsigned char>(), ko, c, total, ctx.stream));
      device_buffer cub_temp(std::max(sort_bytes, select_bytes));
      rows.push_back({is_merge ? "cub::DeviceSegmentedSort" : "cub::DeviceSegmentedSort + flag + DeviceSelect",
                      time_runs(ctx, opt.runs, [&] {
                        std::size_t bytes = cub_temp.bytes();
                        BENCH_CHECK(sort_call(cub_temp.get(), bytes));
                        if (!is_merge) {
                          first_of_run_kernel<<<ctx.grid_for(total), 256, 0, ctx.stream>>>(
                              sorted.get<const std::int32_t>(), co, segments, total, flags.get<unsigned char>());
                          bytes = cub_temp.bytes();
                          BENCH_CHECK(cub::DeviceSelect::Flagged(cub_temp.get(), bytes, sorted.get<const std::int32_t>(),
                                                                 flags.get<const unsigned char>(), ko, c, total,
                                                                 ctx.stream));
                        }
                      })});
      if (is_merge) {  // the merge is CUB's stable sort of each pair; its offsets, the pairs'
        std::vector<std::int32_t> x(total), y(total);
        std::vector<offset_t> got(segments + 1);
        BENCH_CHECK(cudaMemcpy(x.data(), ko, total * 4, cudaMemcpyDeviceToHost));
        BENCH_CHECK(cudaMemcpy(y.data(), sorted.get(), total * 4, cudaMemcpyDeviceToHost));
        BENCH_CHECK(cudaMemcpy(got.data(), oo, (segments + 1) * 8, cudaMemcpyDeviceToHost));
        if (x != y || got != l.concatenated) {
          fmt::print("!!!!!!!! MISMATCH: {} 2^{} ({}): corank's output differs from CUB's segmented sort\n",
                     name_of(k), log, shape);
          mismatch = true;
        }
      }
    }
    // (c) Thrust on composite keys (segment << 32 | key): the merges and set_union.
    if (opt.baselines && (is_merge || k == kind::set_union)) {
      const auto* ca = composite_a.get<const std::uint64_t>();
      const auto* cb = composite_b.get<const std::uint64_t>();
      auto* co = composite_out.get<std::uint64_t>();
      const auto policy = thrust::cuda::par.on(ctx.stream);
      rows.push_back({"thrust on composite keys", time_runs(ctx, opt.runs, [&] {
                        if (k == kind::merge) {
                          thrust::merge(policy, ca, ca + m, cb, cb + n, co);
                        } else if (k == kind::merge_by_key) {
                          thrust::merge_by_key(policy, ca, ca + m, cb, cb + n, va, vb, co, vo);
                        } else {
                          thrust::set_union(policy, ca, ca + m, cb, cb + n, co);
                        }
                      })});
    }
    // (b) A loop of two-input calls, for pairs of 4096 (keys-only operations).
    if (shape == "4096" && !with_values && opt.baselines) {
      std::size_t bytes = 0;
      BENCH_CHECK(corank::device::set_union(nullptr, bytes, ka, index_t(2048), kb, index_t(2048), ko, c));
      device_buffer loop_temp(std::max<std::size_t>(bytes, 1 << 20));
      const int loop_runs = std::max(1, opt.runs / 4);
      rows.push_back({"corank two-input calls, one per segment", time_runs(ctx, loop_runs, [&] {
                        for (index_t s = 0; s < segments; ++s) {
                          const index_t ma = l.a[s + 1] - l.a[s], nb = l.b[s + 1] - l.b[s];
                          std::size_t b2 = loop_temp.bytes();
                          auto* to = ko + l.concatenated[s];
                          switch (k) {
                            case kind::merge:
                              BENCH_CHECK(corank::device::merge(loop_temp.get(), b2, ka + l.a[s], ma, kb + l.b[s], nb,
                                                                to, corank::less{}, ctx.stream));
                              break;
                            case kind::set_union:
                              BENCH_CHECK(corank::device::set_union(loop_temp.get(), b2, ka + l.a[s], ma, kb + l.b[s],
                                                                    nb, to, c, corank::less{}, ctx.stream));
                              break;
                            case kind::set_intersection:
                              BENCH_CHECK(corank::device::set_intersection(loop_temp.get(), b2, ka + l.a[s], ma,
                                                                           kb + l.b[s], nb, to, c, corank::less{},
                                                                           ctx.stream));
                              break;
                            default:
                              BENCH_CHECK(corank::device::set_difference(loop_temp.get(), b2, ka + l.a[s], ma,
                                                                         kb + l.b[s], nb, to, c, corank::less{},
                                                                         ctx.stream));
                          }
                        }
                      })});
    }
    // (d) The copy of the same bytes.
    const std::size_t copy_bytes = std::size_t(total) * (with_values ? 8 : 4);
    device_buffer from(copy_bytes), to(copy_bytes);
    const double copy = time_runs(ctx, opt.runs, [&] {
      BENCH_CHECK(cudaMemcpyAsync(to.get(), from.get(), copy_bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    });
    rows.push_back({"copy", copy});
    print_rows(name_of(k), shape, log, segments, copy, rows);
  }
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  std::vector<std::string> shapes = {"16", "256", "4096", "power-law", "half empty"};
  std::vector<int> logs;
  auto list = [](const std::string& text) {
    std::vector<std::string> items;
    for (std::size_t at = 0; at <= text.size();) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      items.push_back(text.substr(at, comma - at));
      at = comma + 1;
    }
    return items;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--max-log" && i + 1 < argc) opt.max_log = std::stoi(argv[++i]);
    else if (arg == "--logs" && i + 1 < argc) for (const std::string& x : list(argv[++i])) logs.push_back(std::stoi(x));
    else if (arg == "--ops" && i + 1 < argc) opt.ops = list(argv[++i]);
    else if (arg == "--shapes" && i + 1 < argc) {
      shapes = list(argv[++i]);
      for (std::string& x : shapes) if (x == "half-empty") x = "half empty";
    }
    else if (arg == "--runs" && i + 1 < argc) opt.runs = std::stoi(argv[++i]);
    else if (arg == "--json" && i + 1 < argc) opt.json_path = argv[++i];
    else if (arg == "--quick") opt.quick = true, opt.baselines = false;
    else if (arg == "--corank-only") opt.baselines = false;
    else {
      fmt::print(stderr,
                 "usage: corank_segmented_bench [--max-log 16..30 | --logs 24,28] [--runs N] [--json FILE] [--quick]\n"
                 "         [--corank-only]\n"
                 "         [--ops merge,merge_by_key,set_union,set_intersection,set_difference,set_union_by_key]\n"
                 "         [--shapes 16,256,4096,power-law,half-empty]\n");
      return 2;
    }
  }
  try {
    bench_context ctx;
    if (!open_device(ctx, "corank_segmented_bench")) return 1;
    fmt::print("corank_segmented_bench on {}\ncommand: {}\n", ctx.device_description, command_line(argc, argv));
    if (opt.quick) shapes = {"16", "4096", "power-law"};
    if (logs.empty()) {
      if (!opt.quick && opt.max_log > 24) logs.push_back(24);
      logs.push_back(opt.max_log);
    }
    for (const int log : logs) {
      for (const std::string& shape : shapes) bench_case(ctx, opt, log, shape);
    }
    if (!opt.json_path.empty()) write_json_rows(opt.json_path, "corank_segmented_bench", ctx, command_line(argc, argv), json_rows);
  } catch (const std::exception& e) {
    fmt::print(stderr, "corank_segmented_bench: {}\n", e.what());
    return 1;
  }
  return mismatch ? 1 : 0;
}
