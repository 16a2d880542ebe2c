# Runs an example program and compares what it prints with its expected output (NAME.txt,
# what the program prints where there is a GPU):
#   cmake -DEXAMPLE=<program> -DEXPECTED=<file> -DGPU=OFF|ON -P run_example.cmake
# The programs print the GPU part's outcome on one line that starts with "gpu:".
#   GPU=OFF (label cpu): that line is left out on both sides, so the test passes with or
#           without a GPU (a GPU mismatch still fails it, through the exit status).
#   GPU=ON  (label gpu): every line is compared; a program that printed "gpu: skipped" is
#           passed on as skipped (the test's SKIP_REGULAR_EXPRESSION).
# Any difference, or a nonzero exit, fails with both texts.
execute_process(COMMAND "${EXAMPLE}" OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status)
if(GPU AND output MATCHES "(^|\n)gpu: skipped")
  message("${output}")
  return()
endif()
file(READ "${EXPECTED}" expected)
set(compared "\n${output}")
set(compared_expected "\n${expected}")
if(NOT GPU)
  string(REGEX REPLACE "\ngpu:[^\n]*" "" compared "${compared}")
  string(REGEX REPLACE "\ngpu:[^\n]*" "" compared_expected "${compared_expected}")
endif()
if(NOT status EQUAL 0 OR NOT compared STREQUAL compared_expected)
  message("printed (exit status ${status}):\n${output}${errors}\nexpected (${EXPECTED}):\n${expected}")
  message(FATAL_ERROR "${EXAMPLE}: not as expected")
endif()
message("${output}${EXAMPLE}: as expected")
