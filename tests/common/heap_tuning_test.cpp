// keep_freed_heap (common/heap_tuning.hpp): an operator's malloc tunables win over the service's thresholds. Under a
// sanitizer (the dev build) the sanitizer's allocator is left alone; bench/compare_bench shows the effect in release
// (minor page faults of a warm compare: 1,642 with --glibc-heap, 2 without).
#include "common/heap_tuning.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace perftriage {
namespace {

class Tunables {
 public:
  explicit Tunables(const char* value) {
    if (const char* old = std::getenv("GLIBC_TUNABLES")) saved_ = old;
    setenv("GLIBC_TUNABLES", value, 1);
  }
  ~Tunables() {
    if (saved_) {
      setenv("GLIBC_TUNABLES", saved_->c_str(), 1);
    } else {
      unsetenv("GLIBC_TUNABLES");
    }
  }
  Tunables(const Tunables&) = delete;
  Tunables& operator=(const Tunables&) = delete;

 private:
  std::optional<std::string> saved_;
};

TEST(HeapTuning, AnOperatorsMallocTunableLeavesMallocAlone) {
  Tunables t("glibc.malloc.arena_max=2");
  EXPECT_FALSE(keep_freed_heap());
}

TEST(HeapTuning, OtherTunablesDoNot) {
  Tunables t("glibc.cpu.hwcaps=-AVX512F");
#if defined(__GLIBC__) && !defined(PERFTRIAGE_ASAN)
  EXPECT_TRUE(keep_freed_heap());
#else
  EXPECT_FALSE(keep_freed_heap());  // another C library or a sanitizer's allocator: left alone
#endif
}

}  // namespace
}  // namespace perftriage
