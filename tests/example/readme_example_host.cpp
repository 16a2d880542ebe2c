// The README example on the CPU backend: the GPU form's steps on corank::host, compiled by
// the C++ compiler alone and run by the tests everywhere (run_example.cmake compares its
// output with readme_example.txt, as for the GPU form).
// docs/guide/cpp.md shows this file from here on (check_readme.cmake checks).
#include <corank/host/merge.hpp>
#include <corank/host/merge_runs.hpp>
#include <corank/host/operation.hpp>
#include <corank/host/set_operations.hpp>
#include <corank/host/sort.hpp>

#include <vector>

#include "example.hpp"  // sparse_add_op, print

int main() {
  const std::vector<int> a{1, 7, 8, 9, 10}, b{7, 10, 10, 12};

  // 1. The same names and results as on the GPU, on std::threads; throws std::invalid_argument.
  std::vector<int> out(a.size() + b.size());
  corank::host::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  print(1, out.begin(), out.end());

  // 2. merge_by_key: values travel with their keys; equal keys keep A's first (stable).
  std::vector<int> a_values(a.size(), 0), b_values(b.size(), 1);  // 0: from A, 1: from B
  std::vector<int> keys(out.size()), values(out.size());
  corank::host::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), a_values.begin(), b_values.begin(),
                             keys.begin(), values.begin());
  print(2, values.begin(), values.end());

  // 3. After the comparator, the number of threads (0, the default: one per hardware thread).
  std::vector<int> out2(out.size());
  corank::host::merge(a.begin(), a.end(), b.begin(), b.end(), out2.begin(), corank::less{}, 2);
  print(3, out2.begin(), out2.end());

  // 4. Set operations: std::set_union's multiset rules; they return the output's end.
  std::vector<int> uni(a.size() + b.size());
  const auto uni_end = corank::host::set_union(a.begin(), a.end(), b.begin(), b.end(), uni.begin());
  print(4, uni.begin(), uni_end);
  const corank::index_t common = corank::host::set_intersection_count(a.begin(), a.end(), b.begin(), b.end());
  std::printf("4: %lld\n", static_cast<long long>(common));

  // 5. The custom op: (1:1, 7:2) + (7:5, 9:4) = (1:1, 7:7, 9:4).
  const std::vector<int> i1{1, 7}, v1{1, 2}, i2{7, 9}, v2{5, 4};
  std::vector<int> sum_index(4), sum_value(4);
  const auto sum_end = corank::host::by_key_operation<sparse_add_op>{}(
      i1.begin(), i1.end(), i2.begin(), i2.end(), v1.begin(), v2.begin(), sum_index.begin(), sum_value.begin());
  print(5, sum_index.begin(), sum_end.first);
  print(5, sum_value.begin(), sum_end.second);

  // 6. A stable sort: equal keys keep their input order, as the values (positions) show.
  std::vector<int> sort_keys{5, 3, 5, 1, 3}, positions{0, 1, 2, 3, 4};
  corank::host::stable_sort_by_key(sort_keys.begin(), sort_keys.end(), positions.begin());
  print(6, sort_keys.begin(), sort_keys.end());
  print(6, positions.begin(), positions.end());

  // 7. A k-way merge of sorted runs given by offsets (CSR): equal keys come from the lower
  //    run first, as the values (run numbers) show.
  const std::vector<int> runs{1, 4, 9, 2, 4, 4, 10}, run_of{0, 0, 0, 1, 1, 2, 2};
  const std::vector<corank::index_t> offsets{0, 3, 5, 7};
  std::vector<int> merged(runs.size()), merged_run_of(runs.size());
  corank::host::merge_runs_by_key(runs.begin(), run_of.begin(), offsets.begin(), 3, merged.begin(),
                                  merged_run_of.begin());
  print(7, merged.begin(), merged.end());
  print(7, merged_run_of.begin(), merged_run_of.end());
}
