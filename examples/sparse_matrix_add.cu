// Example: adding two sparse matrices in CSR form, C = A + B, with the op of sparse_add.hpp
// run over the matrices' rows at once (a segmented operation: row r of C is the sparse sum of
// row r of A and row r of B), on the GPU and on CPU threads, each checked against a plain
// loop. From the checkout:
//   cmake -S . -B build -G Ninja && cmake --build build --target corank_example_sparse_matrix_add
//   build/examples/corank_example_sparse_matrix_add
// Prints a small sum and "OK"; exits 1 on a mismatch. A second pair of matrices, 20000 rows of
// random lengths (many empty, a few long), is checked too. Without a GPU it says so in one
// line and runs the CPU part only.

#include <corank/host/segmented_operation.hpp>  // corank::host::segmented_by_key_operation
#include <corank/segmented_operation.cuh>       // corank::segmented_by_key_operation

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <cstdio>
#include <random>
#include <vector>

#include "example_check.hpp"  // check_gpu_and_cpu
#include "sparse_add.hpp"     // sparse_add_op

// A sparse matrix in CSR form: row r's nonzeros are at [row_start[r], row_start[r + 1]) of
// column (ascending within the row) and value.
struct csr_matrix {
  std::vector<long long> row_start;
  std::vector<int> column;
  std::vector<double> value;
  long long rows() const { return static_cast<long long>(row_start.size()) - 1; }
};

bool operator==(const csr_matrix& x, const csr_matrix& y) {
  return x.row_start == y.row_start && x.column == y.column && x.value == y.value;
}

void print(const char* name, const csr_matrix& m) {
  std::printf("%s:\n", name);
  for (long long r = 0; r < m.rows(); ++r) {
    std::printf("  row %lld: {", r);
    for (long long k = m.row_start[r]; k < m.row_start[r + 1]; ++k) {
      std::printf("%s%d: %g", k > m.row_start[r] ? ", " : "", m.column[k], m.value[k]);
    }
    std::printf("}\n");
  }
}

// The reference: a two-pointer loop per row.
csr_matrix reference_add(const csr_matrix& a, const csr_matrix& b) {
  csr_matrix c;
  c.row_start.push_back(0);
  for (long long r = 0; r < a.rows(); ++r) {
    long long i = a.row_start[r], j = b.row_start[r];
    const long long i_end = a.row_start[r + 1], j_end = b.row_start[r + 1];
    while (i < i_end || j < j_end) {
      if (j == j_end || (i < i_end && a.column[i] < b.column[j])) {
        c.column.push_back(a.column[i]);
        c.value.push_back(a.value[i++]);
      } else if (i == i_end || b.column[j] < a.column[i]) {
        c.column.push_back(b.column[j]);
        c.value.push_back(b.value[j++]);
      } else {
        c.column.push_back(a.column[i]);
        c.value.push_back(a.value[i++] + b.value[j++]);
      }
    }
    c.row_start.push_back(static_cast<long long>(c.column.size()));
  }
  return c;
}

// On CPU threads: every row at once. C has room for every entry of both; the runner writes
// C's row starts and returns the ends of what it wrote.
csr_matrix add_on_cpu(const csr_matrix& a, const csr_matrix& b) {
  csr_matrix c;
  c.row_start.resize(a.row_start.size());
  c.column.resize(a.column.size() + b.column.size());
  c.value.resize(c.column.size());
  const auto ends = corank::host::segmented_by_key_operation<sparse_add_op>{}(
      a.column.begin(), a.column.end(), a.row_start.begin(), b.column.begin(), b.column.end(), b.row_start.begin(),
      a.rows(), a.value.begin(), b.value.begin(), c.column.begin(), c.value.begin(), c.row_start.begin());
  c.column.erase(ends.first, c.column.end());
  c.value.erase(ends.second, c.value.end());
  return c;
}

// On the GPU: the same call on device vectors, one launch for all rows (the convenience form:
// it allocates what it needs, throws corank::cuda_error, and waits for the size).
csr_matrix add_on_gpu(const csr_matrix& a, const csr_matrix& b) {
  const thrust::device_vector<long long> a_rows(a.row_start.begin(), a.row_start.end()),
      b_rows(b.row_start.begin(), b.row_start.end());
  const thrust::device_vector<int> a_column(a.column.begin(), a.column.end()),
      b_column(b.column.begin(), b.column.end());
  const thrust::device_vector<double> a_value(a.value.begin(), a.value.end()), b_value(b.value.begin(), b.value.end());
  thrust::device_vector<long long> c_rows(a_rows.size());
  thrust::device_vector<int> c_column(a.column.size() + b.column.size());
  thrust::device_vector<double> c_value(c_column.size());
  const auto ends = corank::segmented_by_key_operation<sparse_add_op>{}(
      a_column.begin(), a_column.end(), a_rows.begin(), b_column.begin(), b_column.end(), b_rows.begin(), a.rows(),
      a_value.begin(), b_value.begin(), c_column.begin(), c_value.begin(), c_rows.begin());
  csr_matrix c;
  c.row_start.resize(c_rows.size());
  c.column.resize(ends.first - c_column.begin());
  c.value.resize(c.column.size());
  thrust::copy(c_rows.begin(), c_rows.end(), c.row_start.begin());
  thrust::copy(c_column.begin(), ends.first, c.column.begin());
  thrust::copy(c_value.begin(), ends.second, c.value.begin());
  return c;
}

// `rows` rows of random lengths: a third empty, most short, one in a hundred long; columns
// ascending, small integer values (exact sums).
csr_matrix random_matrix(long long rows, std::mt19937& rng) {
  csr_matrix m;
  m.row_start.push_back(0);
  for (long long r = 0; r < rows; ++r) {
    const unsigned kind = rng() % 100;
    const int length = kind < 33 ? 0 : kind < 99 ? int(rng() % 20) : int(rng() % 5000);
    int column = 0;
    for (int k = 0; k < length; ++k) {
      column += 1 + int(rng() % 3);
      m.column.push_back(column);
      m.value.push_back(double(int(rng() % 19) - 9));
    }
    m.row_start.push_back(static_cast<long long>(m.column.size()));
  }
  return m;
}

int main() {
  // 3 x 6 matrices; row 1 of A is empty, row 2 of both shares columns 2 and 5.
  const csr_matrix a{{0, 2, 2, 4}, {0, 3, 2, 5}, {1.5, 2, -1, 4}};
  const csr_matrix b{{0, 1, 2, 5}, {3, 4, 1, 2, 5}, {0.5, 3, 1, 2, -4}};
  const csr_matrix expected = reference_add(a, b);
  print("A", a);
  print("B", b);
  print("A + B", expected);
  std::mt19937 rng(2026);
  const csr_matrix big_a = random_matrix(20000, rng), big_b = random_matrix(20000, rng);
  const csr_matrix big_expected = reference_add(big_a, big_b);
  std::printf("and two random 20000-row matrices (%zu and %zu nonzeros; the sum has %zu)\n", big_a.column.size(),
              big_b.column.size(), big_expected.column.size());

  return check_gpu_and_cpu(
      [&] { return add_on_gpu(a, b) == expected && add_on_gpu(big_a, big_b) == big_expected; },
      [&] { return add_on_cpu(a, b) == expected && add_on_cpu(big_a, big_b) == big_expected; });
}
