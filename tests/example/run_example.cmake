# Runs a form of the README example, or the quick start, and compares what it prints with the
# expected output:
#   cmake -DEXAMPLE=<program> -DEXPECTED=<file> -P run_example.cmake
# A program that prints "no CUDA GPU: skipped" is passed on as skipped (the test's
# SKIP_REGULAR_EXPRESSION); any other difference, or a nonzero exit, fails with both texts.
execute_process(COMMAND "${EXAMPLE}" OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status)
if(output MATCHES "no CUDA GPU: skipped")
  message("${output}")
  return()
endif()
file(READ "${EXPECTED}" expected)
if(NOT status EQUAL 0 OR NOT output STREQUAL expected)
  message("printed (exit status ${status}):\n${output}${errors}\nexpected (${EXPECTED}):\n${expected}")
  message(FATAL_ERROR "${EXAMPLE}: not as expected")
endif()
message("${output}${EXAMPLE}: as expected")
