// corank's sorted search and sort-merge join against Thrust, in one process on one device.
//
//   corank_search_bench [--logs 24,28] [--types i32,i64] [--shapes sparse,dup2,dup16,hot]
//                       [--what search,join] [--runs 15] [--json FILE]
//
// Inputs: two sorted key columns of 2^log keys each (int32 or int64), made from hashes of the
// index and sorted once; the shapes give the keys' range and so the duplicates:
//   sparse  keys in [0, 4n): few duplicates, about a quarter of the keys match
//   dup2    keys in [0, n/2): about 2 copies of each key per column, about 2n pairs
//   dup4, dup8  likewise: keys in [0, n/4), [0, n/8)
//   dup16   keys in [0, n/16): about 16 copies per column, about 16n pairs (large outputs)
//   hot     sparse, but about 4096 keys of each column are one key: 2^24 pairs on it alone
// search: each key of the second column (sorted queries) is searched in the first (the
//   haystack). corank::device::sorted_lower_bound (two-phase, storage allocated once) against
//   thrust::lower_bound's vectorized form (a binary search per query); int64 positions.
//   Bytes: both columns read, the positions written.
// join: the inner join of the two columns, every (i, j) with left[i] == right[j], as int64
//   positions. corank: device::sorted_join_count_and_keep then device::sorted_join_from_kept
//   (the Python package's and the command's two halves; storage allocated once, the count
//   known from before, as a caller that sized its outputs has it), device::sorted_join_offsets
//   then device::sorted_join_expand (the same, the two halves also timed alone),
//   device::sorted_join (the bound pass and the pairs
//   from its runs, the count known), and the convenience corank::sorted_join (which counts,
//   reads the count back and expands from the runs, allocating from corank's pool). Thrust's sort-merge
//   join on the same sorted keys:
//   thrust::lower_bound and thrust::upper_bound (vectorized), thrust::exclusive_scan of the
//   counts, and the expansion by a load-balanced search: thrust::upper_bound of every output
//   position in the offsets gives its left key, a thrust::for_each its right key.
//   % of copy: the time a device-to-device copy of the output bytes (pairs * 16) takes over
//   the join's time, the issue's measure for large outputs (the search's: a copy moving the
//   bytes it moves).
// Every timed run follows an L2 flush; median of --runs. Outputs are checked: corank's against
// Thrust's, element for element.

#include <corank/join.cuh>
#include <corank/search.cuh>

#include "harness.hpp"
#include "report.hpp"

#include <thrust/binary_search.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace corank_bench;

struct options {
  std::vector<int> logs{24, 28};
  std::vector<std::string> types{"i32", "i64"};
  std::vector<std::string> shapes{"sparse", "dup2", "dup16", "hot"};
  bool search = true;
  bool join = true;
  int runs = 15;
  std::string json_path;
  std::string command;
};

std::vector<std::string> json_rows;

// Keys of `shape` for a column of n (unsorted; sorted by the caller).
template <class Key>
__global__ void shaped_keys_kernel(Key* keys, index_t n, std::uint64_t seed, std::uint64_t range, bool hot) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = index_hash(seed, i);
    // hot: 4096 of the n keys, on average, are the key 1.
    const bool is_hot = hot && (h >> 16) % std::uint64_t(n) < 4096;
    keys[i] = is_hot ? Key(1) : Key(h % range);
  }
}

std::uint64_t range_of(const std::string& shape, index_t n) {
  if (shape == "dup2") return std::uint64_t(n / 2);
  if (shape == "dup4") return std::uint64_t(n / 4);
  if (shape == "dup8") return std::uint64_t(n / 8);
  if (shape == "dup16") return std::uint64_t(n / 16);
  return std::uint64_t(4 * n);  // sparse, hot
}

template <class Key>
device_buffer sorted_column(bench_context& ctx, index_t n, std::uint64_t seed, const std::string& shape) {
  device_buffer keys(std::size_t(n) * sizeof(Key));
  shaped_keys_kernel<Key><<<ctx.grid_for(n), 256, 0, ctx.stream>>>(keys.get<Key>(), n, seed, range_of(shape, n),
                                                                      shape == "hot");
  BENCH_CHECK(cudaPeekAtLastError());
  thrust::sort(thrust::cuda::par.on(ctx.stream), keys.get<Key>(), keys.get<Key>() + n);
  BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  return keys;
}

struct row {
  std::string name;
  timing time;
};

// The time a device-to-device copy takes to move `bytes` (read plus written, as copy_peak
// counts them); 0 where the copy could not be measured.
double copy_ms_for(double bytes, double copy_peak) { return copy_peak > 0 ? bytes / (copy_peak * 1e6) : 0; }

// Prints the rows of one case: ms, GB/s over `bytes` (read plus written), % of copy (copy_ms
// over the row's time), and each row's time over the first row's.
void print_rows(const std::string& what, const std::vector<row>& rows, double bytes, double copy_ms,
                const std::string& check) {
  fmt::print("\n{} [{}]\n", what, check);
  fmt::print("  {:<46} {:>10} {:>9} {:>9} {:>10}\n", "implementation", "ms", "GB/s", "% copy", "/ row 1");
  for (const row& r : rows) {
    const double gbs = bytes / (r.time.median_ms * 1e6);
    const double pct = copy_ms > 0 ? 100.0 * copy_ms / r.time.median_ms : 0;
    fmt::print("  {:<46} {:>10.3f} {:>9.1f} {:>8.1f}% {:>9.2f}x\n", r.name, r.time.median_ms, gbs, pct,
               r.time.median_ms / rows.front().time.median_ms);
    json_rows.push_back(fmt::format(
        "{{\"case\": {}, \"implementation\": {}, \"median_ms\": {:.6f}, \"min_ms\": {:.6f}, \"max_ms\": {:.6f}, "
        "\"runs\": {}, \"bytes\": {:.0f}, \"gb_per_s\": {:.3f}, \"copy_ms\": {:.6f}, \"pct_of_copy\": {:.2f}, "
        "\"check\": {}}}",
        json_string(what), json_string(r.name), r.time.median_ms, r.time.min_ms, r.time.max_ms, r.time.runs, bytes, gbs,
        copy_ms, pct, json_string(check)));
  }
}

template <class Key>
void bench_search(bench_context& ctx, const options& opt, const std::string& type, int lg, const std::string& shape,
                  double copy_peak) {
  const index_t n = index_t(1) << lg, m = n;
  const std::string what = fmt::format("search {} 2^{} {}", type, lg, shape);
  try {
    const device_buffer hay = sorted_column<Key>(ctx, n, 1, shape);
    const device_buffer queries = sorted_column<Key>(ctx, m, 2, shape);
    const Key* h = hay.get<const Key>();
    const Key* q = queries.get<const Key>();
    device_buffer ours(std::size_t(m) * sizeof(index_t)), theirs(std::size_t(m) * sizeof(index_t));
    std::size_t temp_bytes = 0;
    BENCH_CHECK(corank::device::sorted_lower_bound(nullptr, temp_bytes, h, n, q, m, ours.get<index_t>(),
                                                   static_cast<index_t*>(nullptr)));
    device_buffer temp(temp_bytes + 256);
    auto* word = temp.get<index_t>();
    void* storage = temp.get<char>() + 256;

    std::vector<row> rows;
    rows.push_back({"corank::device::sorted_lower_bound", measure(ctx, 1, 3, opt.runs, [&](int) {
                      std::size_t bytes = temp_bytes;
                      BENCH_CHECK(corank::device::sorted_lower_bound(storage, bytes, h, n, q, m, ours.get<index_t>(),
                                                                     word, corank::less{}, ctx.stream));
                    })});
    rows.push_back({"thrust::lower_bound (vectorized)", measure(ctx, 1, 3, opt.runs, [&](int) {
                      thrust::lower_bound(thrust::cuda::par.on(ctx.stream), h, h + n, q, q + m,
                                          theirs.get<index_t>());
                    })});
    const bool same = thrust::equal(thrust::cuda::par.on(ctx.stream), ours.get<index_t>(), ours.get<index_t>() + m,
                                    theirs.get<index_t>());
    const double bytes = double(n + m) * sizeof(Key) + double(m) * sizeof(index_t);
    // % of copy: a copy moving the bytes the search moves.
    print_rows(what, rows, bytes, copy_ms_for(bytes, copy_peak), same ? "corank == thrust" : "MISMATCH");
  } catch (...) {
    fmt::print("\n{}: {}\n", what, failed_check());
  }
}

// Left key i's match count, 0 past the last (so that an exclusive scan of m + 1 ends with the
// number of pairs).
struct count_of {
  const index_t* lower;
  const index_t* upper;
  index_t m;
  __host__ __device__ index_t operator()(index_t i) const { return i < m ? upper[i] - lower[i] : 0; }
};

// Output position p: its left key is the upper bound of p in the offsets, minus one (written
// there by the search), its right key lower[i] + p - offsets[i].
struct expand_pair {
  index_t* left;
  index_t* right;
  const index_t* lower;
  const index_t* offsets;
  __host__ __device__ void operator()(index_t p) const {
    const index_t i = left[p] - 1;
    left[p] = i;
    right[p] = lower[i] + (p - offsets[i]);
  }
};

template <class Key>
void bench_join(bench_context& ctx, const options& opt, const std::string& type, int lg, const std::string& shape,
                double copy_peak) {
  const index_t n = index_t(1) << lg, m = n;
  std::string what = fmt::format("join {} 2^{} {}", type, lg, shape);
  try {
    const device_buffer left_keys = sorted_column<Key>(ctx, m, 3, shape);
    const device_buffer right_keys = sorted_column<Key>(ctx, n, 4, shape);
    const Key* l = left_keys.get<const Key>();
    const Key* r = right_keys.get<const Key>();
    const index_t pairs = corank::sorted_join_count(l, l + m, r, r + n, corank::less{}, ctx.stream);
    what += fmt::format(", {} pairs ({:.2f} GiB out)", pairs, double(pairs) * 16 / gib);

    // corank's two halves, storage allocated once.
    device_buffer kept(std::size_t(2 * m + 1) * sizeof(index_t));
    index_t* lower = kept.get<index_t>();
    index_t* offsets = lower + m;
    device_buffer ours_l(std::size_t(pairs) * sizeof(index_t)), ours_r(std::size_t(pairs) * sizeof(index_t));
    std::size_t offsets_bytes = 0, expand_bytes = 0;
    BENCH_CHECK(corank::device::sorted_join_offsets(nullptr, offsets_bytes, l, m, r, n, lower, offsets,
                                                    static_cast<index_t*>(nullptr)));
    BENCH_CHECK(corank::device::sorted_join_expand(nullptr, expand_bytes, lower, offsets, m, pairs,
                                                   ours_l.get<index_t>(), ours_r.get<index_t>(),
                                                   static_cast<index_t*>(nullptr)));
    std::size_t join_bytes = 0;
    BENCH_CHECK(corank::device::sorted_join(nullptr, join_bytes, l, m, r, n, pairs, ours_l.get<index_t>(),
                                            ours_r.get<index_t>(), static_cast<index_t*>(nullptr)));
    std::size_t keep_bytes = 0, from_kept_bytes = 0, kept_bytes = 0;
    BENCH_CHECK(corank::device::sorted_join_count_and_keep(nullptr, keep_bytes, nullptr, kept_bytes, l, m, r, n,
                                                           static_cast<index_t*>(nullptr)));
    BENCH_CHECK(corank::device::sorted_join_from_kept(nullptr, from_kept_bytes, nullptr, kept_bytes, l, m, r, n, pairs,
                                                      ours_l.get<index_t>(), ours_r.get<index_t>(),
                                                      static_cast<index_t*>(nullptr)));
    device_buffer pass_results(kept_bytes);
    device_buffer temp(std::max({offsets_bytes, expand_bytes, join_bytes, keep_bytes, from_kept_bytes}) + 256);
    auto* word = temp.get<index_t>();
    void* storage = temp.get<char>() + 256;

    const auto two_halves = [&] {
      std::size_t bytes = offsets_bytes;
      BENCH_CHECK(corank::device::sorted_join_offsets(storage, bytes, l, m, r, n, lower, offsets, word,
                                                      corank::less{}, ctx.stream));
      bytes = expand_bytes;
      BENCH_CHECK(corank::device::sorted_join_expand(storage, bytes, lower, offsets, m, pairs, ours_l.get<index_t>(),
                                                     ours_r.get<index_t>(), static_cast<index_t*>(nullptr),
                                                     ctx.stream));
    };
    const auto kept_halves = [&] {
      std::size_t bytes = keep_bytes;
      BENCH_CHECK(corank::device::sorted_join_count_and_keep(storage, bytes, pass_results.get<char>(), kept_bytes, l,
                                                             m, r, n, word, corank::less{}, ctx.stream));
      bytes = from_kept_bytes;
      BENCH_CHECK(corank::device::sorted_join_from_kept(storage, bytes, pass_results.get<char>(), kept_bytes, l, m, r,
                                                        n, pairs, ours_l.get<index_t>(), ours_r.get<index_t>(),
                                                        static_cast<index_t*>(nullptr), ctx.stream));
    };
    std::vector<row> rows;
    rows.push_back({"corank::device::sorted_join_count_and_keep + _from_kept",
                    measure(ctx, 1, 3, opt.runs, [&](int) { kept_halves(); })});
    rows.push_back({"corank::device::sorted_join_offsets + _expand",
                    measure(ctx, 1, 3, opt.runs, [&](int) { two_halves(); })});
    // The two halves alone (the expansion from the offsets the runs above left).
    rows.push_back({"  of which sorted_join_offsets", measure(ctx, 1, 3, opt.runs, [&](int) {
                      std::size_t bytes = offsets_bytes;
                      BENCH_CHECK(corank::device::sorted_join_offsets(storage, bytes, l, m, r, n, lower, offsets, word,
                                                                      corank::less{}, ctx.stream));
                    })});
    rows.push_back({"  of which sorted_join_expand", measure(ctx, 1, 3, opt.runs, [&](int) {
                      std::size_t bytes = expand_bytes;
                      BENCH_CHECK(corank::device::sorted_join_expand(storage, bytes, lower, offsets, m, pairs,
                                                                     ours_l.get<index_t>(), ours_r.get<index_t>(),
                                                                     static_cast<index_t*>(nullptr), ctx.stream));
                    })});
    rows.push_back({"corank::device::sorted_join (count known)", measure(ctx, 1, 3, opt.runs, [&](int) {
                      std::size_t bytes = join_bytes;
                      BENCH_CHECK(corank::device::sorted_join(storage, bytes, l, m, r, n, pairs, ours_l.get<index_t>(),
                                                              ours_r.get<index_t>(), word, corank::less{},
                                                              ctx.stream));
                    })});
    rows.push_back({"corank::sorted_join (count read back, pool)", measure(ctx, 1, 3, opt.runs, [&](int) {
                      corank::sorted_join(l, l + m, r, r + n, ours_l.get<index_t>(), ours_r.get<index_t>(),
                                          corank::less{}, ctx.stream);
                    })});

    // Thrust's sort-merge join: bounds, scan, load-balanced expansion.
    device_buffer t_kept(std::size_t(3 * m + 1) * sizeof(index_t));
    index_t* t_lower = t_kept.get<index_t>();
    index_t* t_upper = t_lower + m;
    index_t* t_offsets = t_upper + m;
    device_buffer theirs_l(std::size_t(pairs) * sizeof(index_t)), theirs_r(std::size_t(pairs) * sizeof(index_t));
    rows.push_back({"thrust bounds + exclusive_scan + upper_bound", measure(ctx, 1, 3, opt.runs, [&](int) {
                      const auto on = thrust::cuda::par.on(ctx.stream);
                      thrust::lower_bound(on, r, r + n, l, l + m, t_lower);
                      thrust::upper_bound(on, r, r + n, l, l + m, t_upper);
                      const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0),
                                                                          count_of{t_lower, t_upper, m});
                      thrust::exclusive_scan(on, counts, counts + (m + 1), t_offsets);
                      thrust::upper_bound(on, t_offsets, t_offsets + m, thrust::counting_iterator<index_t>(0),
                                          thrust::counting_iterator<index_t>(pairs), theirs_l.get<index_t>());
                      thrust::for_each(on, thrust::counting_iterator<index_t>(0),
                                       thrust::counting_iterator<index_t>(pairs),
                                       expand_pair{theirs_l.get<index_t>(), theirs_r.get<index_t>(), t_lower,
                                                   t_offsets});
                    })});
    // Each of corank's ways checked: the convenience form's pairs (the last written), then each
    // pair of halves'.
    const auto on = thrust::cuda::par.on(ctx.stream);
    const auto matches = [&] {
      return thrust::equal(on, ours_l.get<index_t>(), ours_l.get<index_t>() + pairs, theirs_l.get<index_t>()) &&
             thrust::equal(on, ours_r.get<index_t>(), ours_r.get<index_t>() + pairs, theirs_r.get<index_t>());
    };
    bool same = matches();
    two_halves();
    same = same && matches();
    for (const device_buffer* out : {&ours_l, &ours_r}) {  // so that a pair not written is found
      BENCH_CHECK(cudaMemsetAsync(out->get<char>(), 0xff, std::size_t(pairs) * sizeof(index_t), ctx.stream));
    }
    kept_halves();
    same = same && matches();
    const double out_bytes = double(pairs) * 2 * sizeof(index_t);
    const double bytes = double(m + n) * sizeof(Key) + out_bytes;
    // % of copy: a copy of the output bytes (reading and writing them), the issue's measure.
    print_rows(what, rows, bytes, copy_ms_for(2 * out_bytes, copy_peak), same ? "corank == thrust" : "MISMATCH");
  } catch (...) {
    fmt::print("\n{}: {}\n", what, failed_check());
  }
}

options parse(int argc, char** argv) {
  options opt;
  opt.command = command_line(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&] {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--logs") {
      opt.logs.clear();
      for (const std::string& s : split_commas(next())) opt.logs.push_back(parse_int(a, s, 1, 30));
    } else if (a == "--types") {
      opt.types = split_commas(next());
      for (const std::string& t : opt.types) {
        if (t != "i32" && t != "i64") throw usage_error("--types: i32, i64");
      }
    } else if (a == "--shapes") {
      opt.shapes = split_commas(next());
      for (const std::string& s : opt.shapes) {
        if (s != "sparse" && s != "dup2" && s != "dup4" && s != "dup8" && s != "dup16" && s != "hot") {
          throw usage_error("--shapes: sparse, dup2, dup4, dup8, dup16, hot");
        }
      }
    } else if (a == "--what") {
      const std::string w = next();
      opt.search = w.find("search") != std::string::npos;
      opt.join = w.find("join") != std::string::npos;
    } else if (a == "--runs") {
      opt.runs = parse_int(a, next(), 1, 10000);
    } else if (a == "--json") {
      opt.json_path = next();
    } else {
      throw usage_error("unknown option " + a);
    }
  }
  return opt;
}

int run(const options& opt) {
  bench_context ctx;
  if (!open_device(ctx, "corank_search_bench")) return 1;
  const double copy_peak = measure_copy_peak(ctx);
  fmt::print("corank_search_bench on {}\ncommand: {}\ndevice-to-device copy: {:.1f} GB/s (read + write)\n",
             ctx.device_description, opt.command, copy_peak);
  for (const int lg : opt.logs) {
    for (const std::string& type : opt.types) {
      for (const std::string& shape : opt.shapes) {
        if (type == "i32") {
          if (opt.search) bench_search<std::int32_t>(ctx, opt, type, lg, shape, copy_peak);
          if (opt.join) bench_join<std::int32_t>(ctx, opt, type, lg, shape, copy_peak);
        } else {
          if (opt.search) bench_search<std::int64_t>(ctx, opt, type, lg, shape, copy_peak);
          if (opt.join) bench_join<std::int64_t>(ctx, opt, type, lg, shape, copy_peak);
        }
        if (!opt.json_path.empty()) {
          write_json_rows(opt.json_path, "corank_search_bench", ctx, opt.command, json_rows);
        }
      }
    }
  }
  return 0;
}

const char* const usage =
    "usage: corank_search_bench [--logs 24,28] [--types i32,i64] [--shapes sparse,dup2,dup16,hot]\n"
    "                           [--what search,join] [--runs 15] [--json FILE]\n";

}  // namespace

int main(int argc, char** argv) {
  return bench_main<options>(argc, argv, "corank_search_bench", usage, parse, run);
}
