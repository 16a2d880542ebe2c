# The GPU architectures corank's kernels compile for: sm_80 and newer (include/corank/
# architecture.hpp says why). corank's CMakeLists.txt and its installed package check the
# project's CMAKE_CUDA_ARCHITECTURES with this at configure time, so that a project that
# targets an older one (CMake's default when it is not set is nvcc's, sm_75 for CUDA 13) is
# told so in one sentence, not by the compiler. docs/decisions.md says why it checks rather
# than choosing.

set(CORANK_MIN_CUDA_ARCHITECTURE 80)

# corank_oldest_cuda_architecture(<architectures> <result>): the oldest architecture number in
# a CMAKE_CUDA_ARCHITECTURES value ("75" for "75;90a-real"); "all" and "all-major" include
# CUDA 13's oldest, 75; "native" counts as the architectures CMake found (none where it found
# none). <result> is empty where the value names no architecture (OFF, empty).
function(corank_oldest_cuda_architecture architectures result)
  set(oldest "")
  foreach(architecture IN LISTS architectures)
    set(numbers "")
    if(architecture MATCHES "^(all|all-major)$")
      set(numbers 75)
    elseif(architecture STREQUAL "native")
      set(numbers "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
    elseif(architecture MATCHES "^[0-9]+")
      set(numbers "${architecture}")
    endif()
    foreach(number IN LISTS numbers)
      # Nested: if() evaluates parentheses before MATCHES sets CMAKE_MATCH_1.
      if(number MATCHES "^([0-9]+)")
        if(oldest STREQUAL "" OR CMAKE_MATCH_1 LESS oldest)
          set(oldest "${CMAKE_MATCH_1}")
        endif()
      endif()
    endforeach()
  endforeach()
  set(${result} "${oldest}" PARENT_SCOPE)
endfunction()

# corank_check_cuda_architectures(<architectures>): stops the configuration, with the fix,
# if <architectures> (a CMAKE_CUDA_ARCHITECTURES value) includes one older than sm_80.
function(corank_check_cuda_architectures architectures)
  corank_oldest_cuda_architecture("${architectures}" oldest)
  if(NOT oldest STREQUAL "" AND oldest LESS CORANK_MIN_CUDA_ARCHITECTURE)
    message(FATAL_ERROR
      "corank needs GPU architecture sm_80 or newer, but CMAKE_CUDA_ARCHITECTURES is \"${architectures}\": "
      "set it to 80 or newer, e.g. -DCMAKE_CUDA_ARCHITECTURES=90 (or \"80;90\" for A100 and H100).")
  endif()
endfunction()
