# Checks that the documents show the examples as they are compiled and run: each source file
# from its line "<document> shows this file from here on" to its end, and each expected
# output, as a fenced block of the document named (README.md: the quick start;
# docs/guide/cpp.md: the tour of the C++ forms).
#   cmake -DROOT=<corank checkout> -P check_readme.cmake
set(marker "shows this file from here on")
# document=file (in tests/example/)
set(shown
  README.md=quick_start.cu
  README.md=quick_start.txt
  docs/guide/cpp.md=example.hpp
  docs/guide/cpp.md=readme_example.cu
  docs/guide/cpp.md=readme_example_host.cpp
  docs/guide/cpp.md=readme_example.txt)
set(missing "")
foreach(entry IN LISTS shown)
  string(REGEX REPLACE "=.*" "" document "${entry}")
  string(REGEX REPLACE ".*=" "" name "${entry}")
  file(READ "${ROOT}/${document}" shown_in)
  file(READ "${ROOT}/tests/example/${name}" text)
  if(name MATCHES "[.]txt$")
    set(block "```text\n${text}```")
  else()
    string(FIND "${text}" "${document} ${marker}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "tests/example/${name} has no line \"${document} ${marker}\"")
    endif()
    string(SUBSTRING "${text}" ${at} -1 text)
    string(FIND "${text}" "\n" at)
    math(EXPR at "${at} + 1")
    string(SUBSTRING "${text}" ${at} -1 text)
    set(block "```cpp\n${text}```")
  endif()
  string(FIND "${shown_in}" "${block}" at)
  if(at EQUAL -1)
    list(APPEND missing "tests/example/${name} (in ${document})")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "the documents do not show these as they are (copy them in): ${missing}")
endif()
message("README.md and docs/guide/cpp.md show the examples as they are")
