# Warnings and sanitizers live on INTERFACE targets, never in CMAKE_CXX_FLAGS.
add_library(perftriage_warnings INTERFACE)
target_compile_options(perftriage_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)

add_library(perftriage_sanitizers INTERFACE)
if(PERFTRIAGE_FUZZ)
  # Coverage instrumentation for libFuzzer in every library; only the harnesses link the fuzzer runtime
  # (fuzz/CMakeLists.txt adds -fsanitize=fuzzer to them).
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PERFTRIAGE_FUZZ needs clang (libFuzzer): configure with the `fuzz` preset")
  endif()
  target_compile_options(perftriage_sanitizers INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(perftriage_sanitizers INTERFACE -fsanitize=address,undefined)
elseif(PERFTRIAGE_SANITIZE)
  target_compile_options(perftriage_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(perftriage_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

# Every project target links this one.
add_library(perftriage_options INTERFACE)
target_link_libraries(perftriage_options INTERFACE perftriage_warnings perftriage_sanitizers)
