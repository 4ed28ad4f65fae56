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
    message(FATAL_ERROR "PERFTRIAGE_FUZZ needs clang (libFuzzer): configure with the `dev` preset")
  endif()
  target_compile_options(perftriage_sanitizers INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # Not position-independent: libFuzzer's coverage tables (__sancov_pcs) hold a pointer per basic block, and a PIE
  # relocates each one at every start (3.4 million relocations, 0.4 s, in the server's test executable; CTest starts
  # it once per test).
  target_link_options(perftriage_sanitizers INTERFACE -fsanitize=address,undefined -no-pie)
elseif(PERFTRIAGE_SANITIZE)
  target_compile_options(perftriage_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(perftriage_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

# Every project target links this one.
add_library(perftriage_options INTERFACE)
target_link_libraries(perftriage_options INTERFACE perftriage_warnings perftriage_sanitizers)
# LLVM's linker (Debian's lld) for clang builds: the sanitized test executables are hundreds of MB, and GNU ld spent
# a fifth of the dev build linking them.
find_program(PERFTRIAGE_LLD ld.lld)
if(PERFTRIAGE_LLD AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  target_link_options(perftriage_options INTERFACE -fuse-ld=lld)
endif()

# ccache (Debian's package) when it is installed: a rebuild after `git checkout` or a second clone on the same
# machine compiles only what changed. The precompiled header is part of every compile, so ccache is told to hash
# the header's input instead of refusing those compiles (its `pch_defines,time_macros` sloppiness).
option(PERFTRIAGE_CCACHE "Compile through ccache when it is installed" ON)
find_program(PERFTRIAGE_CCACHE_PROGRAM ccache)
if(PERFTRIAGE_CCACHE AND PERFTRIAGE_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_ccache ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${PERFTRIAGE_CCACHE_PROGRAM})
  set(CMAKE_C_COMPILER_LAUNCHER ${_ccache})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_ccache})
endif()

# Precompiled headers: the standard library, nlohmann/json and fmt are in most files of every library (and gtest in
# every test), and parsing them was most of a file's compile time. One header set per target (a PCH is built with
# the target's own flags); `perftriage_pch(target [extra headers])` for the libraries and test executables of more
# than a few files.
option(PERFTRIAGE_PCH "Precompile the heavy common headers" ON)
function(perftriage_pch target)
  if(NOT PERFTRIAGE_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    <algorithm> <cstdint> <map> <memory> <optional> <set> <string> <string_view> <vector>
    <nlohmann/json.hpp> <fmt/format.h> ${ARGN})
endfunction()

# The dev build is -O0 (compile time), but a library whose tests are CPU-bound (model training, trace scans) is
# compiled at -O2 there too: sanitizers and the fuzzer's coverage stay on, only the optimizer changes.
function(perftriage_optimize_in_dev target)
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    target_compile_options(${target} PRIVATE -O2)
  endif()
endfunction()
