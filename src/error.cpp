#include <corank/error.hpp>

namespace corank {

namespace {
std::string describe(cudaError_t code, const std::string& context) {
  return context + ": " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + ")";
}
}  // namespace

cuda_error::cuda_error(cudaError_t code, const std::string& context)
    : std::runtime_error(describe(code, context)), code_(code) {}

unsorted_input::unsorted_input(const std::string& context, char input, std::int64_t index)
    : std::invalid_argument(context + ": input " + input + " is not sorted: element " +
                            std::to_string(index) + " comes before element " +
                            std::to_string(index - 1)),
      input_(input),
      index_(index) {}

unsorted_input::unsorted_input(const std::string& context)
    : std::invalid_argument(context +
                            ": the inputs are not sorted by the comparator (their partition went backwards; "
                            "check_sorted names the first element out of order)"),
      input_(0),
      index_(-1) {}

namespace detail {
void throw_cuda_error(cudaError_t code, const char* context) {
  if (code == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // allocation failures are not sticky; clear the record
    throw out_of_memory(describe(code, context));
  }
  throw cuda_error(code, context);
}
}  // namespace detail

}  // namespace corank
