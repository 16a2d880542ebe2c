#pragma once
// How much more host memory this process can take before an allocation fails or the
// kernel's OOM killer ends it: checked before any input is read, so that a job too large
// for the machine is refused with its figures instead of dying midway.

#include <cstdint>

namespace corank::cli {

// The least of what Linux says is left: MemAvailable plus free swap, the memory cgroup's
// limit less its usage, and RLIMIT_AS / RLIMIT_DATA less what the process already maps.
// UINT64_MAX where none of them is known.
std::uint64_t available_host_memory();

// What RLIMIT_AS leaves of the address space (mapped files count there, not in RAM);
// UINT64_MAX where there is no limit.
std::uint64_t available_address_space();

}  // namespace corank::cli
