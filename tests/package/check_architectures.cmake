# The configure-time architecture check (cmake/corankArchitectures.cmake), without a compiler:
#   cmake -DROOT=<corank checkout> -P check_architectures.cmake
# With -DCHECK=<architectures> it only runs the check, for the cases that must stop.
include("${ROOT}/cmake/corankArchitectures.cmake")
set(CMAKE_CUDA_ARCHITECTURES_NATIVE "90-real")  # as CMake finds it on an H100
if(DEFINED CHECK)
  corank_check_cuda_architectures("${CHECK}")
  return()
endif()

set(failures 0)
# value=oldest, with "|" for the list separator of CMAKE_CUDA_ARCHITECTURES
foreach(case "90=90" "90a=90" "90-real=90" "100f=100" "80|90=80" "90|75-virtual=75" "all=75"
             "all-major=75" "native=90" "120a-real|100=100" "OFF=" "=")
  string(REGEX MATCH "^([^=]*)=(.*)$" _ "${case}")
  string(REPLACE "|" ";" value "${CMAKE_MATCH_1}")
  set(expected "${CMAKE_MATCH_2}")
  corank_oldest_cuda_architecture("${value}" oldest)
  if(NOT oldest STREQUAL expected)
    message(SEND_ERROR "oldest of \"${value}\": ${oldest}, expected ${expected}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

# Stopped, with the sentence, or let through.
foreach(case "75=stop" "all=stop" "80|90=pass" "90=pass" "100a=pass" "OFF=pass")
  string(REGEX MATCH "^([^=]*)=(.*)$" _ "${case}")
  string(REPLACE "|" ";" value "${CMAKE_MATCH_1}")
  set(expected "${CMAKE_MATCH_2}")
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DROOT=${ROOT}" "-DCHECK=${value}"
                          -P "${CMAKE_CURRENT_LIST_FILE}"
                  RESULT_VARIABLE status ERROR_VARIABLE said)
  if(expected STREQUAL "stop")
    set(ok FALSE)
    if(NOT status EQUAL 0 AND said MATCHES "corank needs GPU architecture sm_80 or newer.*-DCMAKE_CUDA_ARCHITECTURES=90")
      set(ok TRUE)
    endif()
  else()
    set(ok FALSE)
    if(status EQUAL 0)
      set(ok TRUE)
    endif()
  endif()
  if(NOT ok)
    message(SEND_ERROR "check of \"${value}\": expected to ${expected}, exit status ${status}, said: ${said}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} architecture check(s) failed")
endif()
message("architecture checks passed")
