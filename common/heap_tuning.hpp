#pragma once
// A long-running process keeps the heap it freed for its next request instead of handing it back to the kernel.
//
// With glibc's defaults a large answer (a compare of two nightlies: ~3 MB of JSON, ~4 MB of cases, ~3 MB of map
// nodes) is mmap'd or trimmed off the heap's top when it is freed, so every such request takes ~1,650 fresh-page
// faults (~6.6 MB zeroed by the kernel), about 4 ms of a 33 ms compare (bench/compare_bench: 1,642 faults per warm
// compare before, 0 after). Blocks under 16 MiB now come from the heap, and up to 32 MiB of free space stays at a
// heap's top. The price: up to that much memory per malloc arena stays resident after a peak; peaks themselves do
// not grow. An operator's own GLIBC_TUNABLES for malloc win: nothing is changed when they name one.
#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// GCC says __SANITIZE_ADDRESS__; clang says __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define PERFTRIAGE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PERFTRIAGE_ASAN 1
#endif
#endif

namespace perftriage {

inline constexpr int kKeepHeapMmapThreshold = 16 << 20;  // bytes: blocks below come from the heap
inline constexpr int kKeepHeapTrimThreshold = 32 << 20;  // bytes of free heap top kept before trimming

// True when the thresholds were set (glibc, no malloc tunables given).
inline bool keep_freed_heap() {
#if defined(__GLIBC__) && !defined(PERFTRIAGE_ASAN)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) return false;
  // Setting either turns off glibc's own threshold that grows with what was freed; both are set.
  return mallopt(M_MMAP_THRESHOLD, kKeepHeapMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kKeepHeapTrimThreshold) == 1;
#else
  return false;  // another C library, or a sanitizer's allocator: its own policy
#endif
}

}  // namespace perftriage
