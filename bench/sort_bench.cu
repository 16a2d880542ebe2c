// corank's stable sort and k-way merge against CUB and Thrust, in one process on one device.
//
//   corank_sort_bench [--max-log 28] [--runs 15] [--what sort,kway] [--json FILE]
//
// sort: int32, int64, int32 keys with int32 values, float with 1% NaN, and a 16-byte key with
// a custom comparator, 2^16 to 2^max-log keys, in place: corank::device::stable_sort[_by_key]
// against cub::DeviceMergeSort::StableSortKeys/Pairs and thrust::stable_sort[_by_key] with a
// comparator (comparison sorts, like corank's), cub::DeviceRadixSort beside for reference
// where it applies. Every timed run sorts a fresh copy of the same random keys (the copy is
// not timed) after an L2 flush; median of --runs.
// kway: int32 keys, 2^24 and 2^max-log in all, in k = 2 ... 65536 sorted runs of equal or
// skewed lengths (run 0 holds half): corank::device::merge_runs against the radix sort and
// the merge sort of the concatenation and a tree of corank's pairwise merges (k <= 1024).
// Prints ms, Gkeys/s, % of a device-to-device copy of the keys (copy time / time) and
// corank's speedup over each other row. --json writes every row too (bench/plot.py plots the
// sort's: GB/s, bytes = elements * (key + value size) * 2, read and written once).

#include <corank/merge.cuh>
#include <corank/merge_runs.cuh>
#include <corank/sort.cuh>

#include "harness.hpp"
#include "report.hpp"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace corank_bench;

struct alignas(16) wide_key {
  std::int64_t key;
  std::int64_t tag;
};
struct wide_less {
  __host__ __device__ bool operator()(const wide_key& a, const wide_key& b) const { return a.key < b.key; }
};

template <class Key>
__global__ void fill_keys_kernel(Key* keys, index_t n, std::uint64_t seed) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = index_hash(seed, i);
    if constexpr (std::is_same_v<Key, wide_key>) {
      keys[i] = wide_key{std::int64_t(h >> 1), i};
    } else if constexpr (std::is_same_v<Key, float>) {
      keys[i] = h % 100 == 0 ? NAN : float(std::int64_t(h >> 40)) * 0.001f;
    } else {
      keys[i] = static_cast<Key>(h);
    }
  }
}

struct options {
  int max_log = 28;
  int runs = 15;
  bool sort = true, kway = true;
  std::string json_path;
};

struct row {
  std::string name;
  double ms = 0;
};

// What a table of rows measured, for the JSON: the operation, its input and size.
struct case_info {
  std::string op;     // "sort", or "k-way 2^N" (N: the total size's log2)
  std::string shape;  // k-way: "equal" or "skewed"
  std::string type;
  int log = 0;        // sort: log2 of the size
  index_t k = 0;      // k-way: the runs
  double bytes = 0;   // read and written once
};

std::vector<std::string> json_rows;

void print_rows(const case_info& info, index_t n, double copy_ms, const std::vector<row>& rows) {
  const double corank_ms = rows.front().ms;
  for (const row& r : rows) {
    if (r.ms <= 0) {
      fmt::print("  {:<44} {:>10}\n", r.name, "n/a");
      continue;
    }
    json_rows.push_back(fmt::format(
          "{{\"op\": {}, \"shape\": {}, \"type\": {}, {}\"impl\": {}, \"median_ms\": {:.6f}, \"gbps\": {:.2f}, "
          "\"percent_of_copy\": {:.1f}, \"corank_speedup\": {:.3f}}}",
          json_string(info.op), json_string(info.shape), json_string(info.type),
          info.k > 0 ? fmt::format("\"k\": {}, ", info.k) : fmt::format("\"log2_elements_per_input\": {}, ", info.log),
          json_string(r.name), r.ms, info.bytes / (r.ms * 1e6), 100.0 * copy_ms / r.ms, r.ms / corank_ms));
    fmt::print("  {:<44} {:>9.3f} ms {:>8.2f} Gkeys/s {:>6.1f}% of copy   corank x{:.2f}\n", r.name, r.ms,
               double(n) / (r.ms * 1e6), 100.0 * copy_ms / r.ms, r.ms / corank_ms);
  }
}

// Times `run()` on fresh copies of `source` in `work` (the copy untimed), each after a flush.
template <class Run>
double time_on_copies(bench_context& ctx, int runs, const void* source, void* work, std::size_t bytes, Run run,
                      const void* source2 = nullptr, void* work2 = nullptr, std::size_t bytes2 = 0) {
  std::vector<double> ms;
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  for (int r = -2; r < runs; ++r) {
    if (bytes > 0) BENCH_CHECK(cudaMemcpyAsync(work, source, bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    if (bytes2 > 0) BENCH_CHECK(cudaMemcpyAsync(work2, source2, bytes2, cudaMemcpyDeviceToDevice, ctx.stream));
    ctx.flush_l2();
    BENCH_CHECK(cudaEventRecord(start, ctx.stream));
    run();
    BENCH_CHECK(cudaEventRecord(stop, ctx.stream));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    BENCH_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r >= 0) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(ms).median_ms;
}

double copy_ms(bench_context& ctx, int runs, std::size_t bytes) {
  device_buffer a(bytes), b(bytes);
  BENCH_CHECK(cudaMemsetAsync(a.get(), 1, bytes, ctx.stream));
  return time_on_copies(ctx, runs, nullptr, nullptr, 0, [&] {
    BENCH_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream));
  });
}

template <class Key, class Compare, bool Pairs>
void bench_sort(bench_context& ctx, const options& opt, const std::string& type, Compare comp, bool radix) {
  for (int lg = 16; lg <= opt.max_log; lg += 4) {
    const index_t n = index_t(1) << lg;
    const std::size_t key_bytes = std::size_t(n) * sizeof(Key), value_bytes = Pairs ? std::size_t(n) * 4 : 0;
    try {
      device_buffer source(key_bytes), work(key_bytes), values_source(value_bytes), values(value_bytes);
      device_buffer out(radix ? key_bytes : 0), values_out(radix ? value_bytes : 0);
      fill_keys_kernel<<<ctx.grid_for(n), 256, 0, ctx.stream>>>(source.get<Key>(), n, 42 + lg);
      if (Pairs) BENCH_CHECK(cudaMemsetAsync(values_source.get(), 7, value_bytes, ctx.stream));
      Key* keys = work.get<Key>();
      std::int32_t* vals = values.get<std::int32_t>();
      std::vector<row> rows;
      // corank
      std::size_t bytes = 0;
      if constexpr (Pairs) {
        BENCH_CHECK(corank::device::stable_sort_by_key(nullptr, bytes, keys, vals, n, comp, ctx.stream));
      } else {
        BENCH_CHECK(corank::device::stable_sort(nullptr, bytes, keys, n, comp, ctx.stream));
      }
      device_buffer temp(bytes);
      rows.push_back({"corank::stable_sort", time_on_copies(ctx, opt.runs, source.get(), keys, key_bytes, [&] {
                        if constexpr (Pairs) {
                          BENCH_CHECK(corank::device::stable_sort_by_key(temp.get(), bytes, keys, vals, n, comp,
                                                                         ctx.stream));
                        } else {
                          BENCH_CHECK(corank::device::stable_sort(temp.get(), bytes, keys, n, comp, ctx.stream));
                        }
                      }, values_source.get(), vals, value_bytes)});
      // Check the corank result against CUB's below (both stable): keep a copy.
      device_buffer corank_keys(key_bytes);
      BENCH_CHECK(cudaMemcpyAsync(corank_keys.get(), keys, key_bytes, cudaMemcpyDeviceToDevice, ctx.stream));
      // cub::DeviceMergeSort
      std::size_t cub_bytes = 0;
      if constexpr (Pairs) {
        BENCH_CHECK(cub::DeviceMergeSort::StableSortPairs(nullptr, cub_bytes, keys, vals, n, comp, ctx.stream));
      } else {
        BENCH_CHECK(cub::DeviceMergeSort::StableSortKeys(nullptr, cub_bytes, keys, n, comp, ctx.stream));
      }
      device_buffer cub_temp(cub_bytes);
      rows.push_back({"cub::DeviceMergeSort", time_on_copies(ctx, opt.runs, source.get(), keys, key_bytes, [&] {
                        if constexpr (Pairs) {
                          BENCH_CHECK(cub::DeviceMergeSort::StableSortPairs(cub_temp.get(), cub_bytes, keys, vals, n,
                                                                            comp, ctx.stream));
                        } else {
                          BENCH_CHECK(cub::DeviceMergeSort::StableSortKeys(cub_temp.get(), cub_bytes, keys, n, comp,
                                                                           ctx.stream));
                        }
                      }, values_source.get(), vals, value_bytes)});
      std::vector<unsigned char> a(key_bytes), b(key_bytes);
      BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
      BENCH_CHECK(cudaMemcpy(a.data(), corank_keys.get(), key_bytes, cudaMemcpyDeviceToHost));
      BENCH_CHECK(cudaMemcpy(b.data(), keys, key_bytes, cudaMemcpyDeviceToHost));
      const bool same = a == b;
      rows.push_back({"thrust::stable_sort(comp)", time_on_copies(ctx, opt.runs, source.get(), keys, key_bytes, [&] {
                        if constexpr (Pairs) {
                          thrust::stable_sort_by_key(thrust::cuda::par_nosync.on(ctx.stream), keys, keys + n, vals,
                                                     comp);
                        } else {
                          thrust::stable_sort(thrust::cuda::par_nosync.on(ctx.stream), keys, keys + n, comp);
                        }
                      }, values_source.get(), vals, value_bytes)});
      if constexpr (std::is_arithmetic_v<Key>) {
        if (radix) {
          std::size_t radix_bytes = 0;
          if constexpr (Pairs) {
            BENCH_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, radix_bytes, keys, out.get<Key>(), vals,
                                                        values_out.get<std::int32_t>(), n, 0, int(8 * sizeof(Key)),
                                                        ctx.stream));
          } else {
            BENCH_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes, keys, out.get<Key>(), n, 0,
                                                       int(8 * sizeof(Key)), ctx.stream));
          }
          device_buffer radix_temp(radix_bytes);
          rows.push_back({"cub::DeviceRadixSort (reference)",
                          time_on_copies(ctx, opt.runs, nullptr, nullptr, 0, [&] {
                            if constexpr (Pairs) {
                              BENCH_CHECK(cub::DeviceRadixSort::SortPairs(
                                  radix_temp.get(), radix_bytes, keys, out.get<Key>(), vals,
                                  values_out.get<std::int32_t>(), n, 0, int(8 * sizeof(Key)), ctx.stream));
                            } else {
                              BENCH_CHECK(cub::DeviceRadixSort::SortKeys(radix_temp.get(), radix_bytes, keys,
                                                                         out.get<Key>(), n, 0, int(8 * sizeof(Key)),
                                                                         ctx.stream));
                            }
                          })});
        }
      }
      fmt::print("sort {} 2^{} ({}){}\n", type, lg, same ? "corank == cub" : "MISMATCH corank != cub", "");
      print_rows({"sort", "", type, lg, 0, 2.0 * double(key_bytes + value_bytes)}, n,
                 copy_ms(ctx, opt.runs, key_bytes), rows);
    } catch (...) {
      fmt::print("sort {} 2^{}: {}\n", type, lg, failed_check());
    }
  }
}

__global__ void offsets_kernel(index_t* offsets, index_t k, index_t n, bool skewed) {
  const index_t j = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (j > k) return;
  if (!skewed || k == 1) {
    offsets[j] = n * j / k;
  } else {
    offsets[j] = j == 0 ? 0 : n / 2 + (n - n / 2) * (j - 1) / (k - 1);
  }
}

void bench_kway(bench_context& ctx, const options& opt) {
  for (int lg : {24, opt.max_log}) {
    const index_t n = index_t(1) << lg;
    const std::size_t bytes = std::size_t(n) * 4;
    const double copy = copy_ms(ctx, opt.runs, bytes);
    for (bool skewed : {false, true}) {
      for (index_t k : {2, 4, 16, 64, 256, 1024, 65536}) {
        try {
          device_buffer keys(bytes), out(bytes), offsets(std::size_t(k + 1) * sizeof(index_t)), work(bytes);
          fill_keys_kernel<<<ctx.grid_for(n), 256, 0, ctx.stream>>>(keys.get<std::int32_t>(), n, 7 + k);
          offsets_kernel<<<unsigned(k / 256 + 1), 256, 0, ctx.stream>>>(offsets.get<index_t>(), k, n, skewed);
          const index_t* offs = offsets.get<index_t>();
          {  // each run sorted
            std::size_t b = 0;
            BENCH_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, b, keys.get<std::int32_t>(), out.get<std::int32_t>(),
                                                          n, k, offs, offs + 1, ctx.stream));
            device_buffer t(b);
            BENCH_CHECK(cub::DeviceSegmentedSort::SortKeys(t.get(), b, keys.get<std::int32_t>(), out.get<std::int32_t>(),
                                                          n, k, offs, offs + 1, ctx.stream));
            BENCH_CHECK(cudaMemcpyAsync(keys.get(), out.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream));
          }
          const std::int32_t* in = keys.get<std::int32_t>();
          std::int32_t* to = out.get<std::int32_t>();
          std::vector<row> rows;
          std::size_t temp_bytes = 0;
          BENCH_CHECK(corank::device::merge_runs(nullptr, temp_bytes, in, offs, k, n, to, corank::less{}, ctx.stream));
          device_buffer temp(temp_bytes);
          rows.push_back({"corank::merge_runs", time_on_copies(ctx, opt.runs, nullptr, nullptr, 0, [&] {
                            BENCH_CHECK(corank::device::merge_runs(temp.get(), temp_bytes, in, offs, k, n, to,
                                                                   corank::less{}, ctx.stream));
                          })});
          std::vector<std::int32_t> result(static_cast<std::size_t>(n)), check(static_cast<std::size_t>(n));
          BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
          BENCH_CHECK(cudaMemcpy(result.data(), to, bytes, cudaMemcpyDeviceToHost));
          std::size_t radix_bytes = 0;
          BENCH_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes, in, to, n, 0, 32, ctx.stream));
          device_buffer radix_temp(radix_bytes);
          rows.push_back({"cub::DeviceRadixSort (concatenation)", time_on_copies(ctx, opt.runs, nullptr, nullptr, 0, [&] {
                            BENCH_CHECK(cub::DeviceRadixSort::SortKeys(radix_temp.get(), radix_bytes, in, to, n, 0, 32,
                                                                       ctx.stream));
                          })});
          BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
          BENCH_CHECK(cudaMemcpy(check.data(), to, bytes, cudaMemcpyDeviceToHost));
          const bool same = result == check;
          std::size_t merge_bytes = 0;
          std::int32_t* w = work.get<std::int32_t>();
          BENCH_CHECK(cub::DeviceMergeSort::StableSortKeys(nullptr, merge_bytes, w, n, corank::less{}, ctx.stream));
          device_buffer merge_temp(merge_bytes);
          rows.push_back({"cub::DeviceMergeSort (concatenation)",
                          time_on_copies(ctx, opt.runs, in, w, bytes, [&] {
                            BENCH_CHECK(cub::DeviceMergeSort::StableSortKeys(merge_temp.get(), merge_bytes, w, n,
                                                                             corank::less{}, ctx.stream));
                          })});
          if (k <= 1024) {
            // Pairwise tree: level by level, adjacent runs merged by corank::merge (pool storage).
            std::vector<index_t> host_offsets(std::size_t(k + 1));
            BENCH_CHECK(cudaMemcpy(host_offsets.data(), offs, host_offsets.size() * sizeof(index_t),
                                   cudaMemcpyDeviceToHost));
            rows.push_back({"pairwise tree of corank::merge", time_on_copies(ctx, opt.runs, nullptr, nullptr, 0, [&] {
                              std::vector<index_t> o = host_offsets;
                              const std::int32_t* from = in;
                              std::int32_t* bufs[2] = {to, w};
                              int b = 0;
                              while (o.size() > 2) {
                                std::vector<index_t> next;
                                for (std::size_t j = 0; j + 1 < o.size(); j += 2) {
                                  next.push_back(o[j]);
                                  if (j + 2 < o.size()) {
                                    corank::merge(from + o[j], from + o[j + 1], from + o[j + 1], from + o[j + 2],
                                                  bufs[b] + o[j], corank::less{}, ctx.stream);
                                  } else {
                                    BENCH_CHECK(cudaMemcpyAsync(bufs[b] + o[j], from + o[j],
                                                                (o[j + 1] - o[j]) * sizeof(std::int32_t),
                                                                cudaMemcpyDeviceToDevice, ctx.stream));
                                  }
                                }
                                next.push_back(o.back());
                                o = next;
                                from = bufs[b];
                                b ^= 1;
                              }
                            })});
          }
          fmt::print("kway int32 2^{} k={} {} ({})\n", lg, k, skewed ? "skewed" : "equal",
                     same ? "corank == radix sort" : "MISMATCH");
          print_rows({fmt::format("k-way 2^{}", lg), skewed ? "skewed" : "equal", "int32", lg, k, 2.0 * double(bytes)}, n,
                     copy, rows);
        } catch (...) {
          fmt::print("kway 2^{} k={}: {}\n", lg, k, failed_check());
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-log" && i + 1 < argc) opt.max_log = std::stoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) opt.runs = std::stoi(argv[++i]);
    else if (a == "--what" && i + 1 < argc) {
      const std::string w = argv[++i];
      opt.sort = w.find("sort") != std::string::npos;
      opt.kway = w.find("kway") != std::string::npos;
    } else if (a == "--json" && i + 1 < argc) {
      opt.json_path = argv[++i];
    } else {
      fmt::print(stderr, "usage: corank_sort_bench [--max-log 16..30] [--runs N] [--what sort,kway] [--json FILE]\n");
      return 2;
    }
  }
  try {
    bench_context ctx;
    if (!open_device(ctx, "corank_sort_bench")) return 1;
    fmt::print("corank_sort_bench on {}\ncommand: {}\n", ctx.device_description, command_line(argc, argv));
    if (opt.sort) {
      bench_sort<std::int32_t, corank::less, false>(ctx, opt, "int32", corank::less{}, true);
      bench_sort<std::int64_t, corank::less, false>(ctx, opt, "int64", corank::less{}, true);
      bench_sort<std::int32_t, corank::less, true>(ctx, opt, "int32:int32", corank::less{}, true);
      bench_sort<float, corank::nan_last_less, false>(ctx, opt, "float (1% NaN)", corank::nan_last_less{}, false);
      bench_sort<wide_key, wide_less, false>(ctx, opt, "16-byte key", wide_less{}, false);
    }
    if (opt.kway) bench_kway(ctx, opt);
    if (!opt.json_path.empty()) write_json_rows(opt.json_path, "corank_sort_bench", ctx, command_line(argc, argv), json_rows);
  } catch (const std::exception& e) {
    fmt::print(stderr, "corank_sort_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
