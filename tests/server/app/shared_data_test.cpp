// Checks against the real public files in ../shared/data (PROVENANCE.md's measured counts).
// Skipped where ../shared is not beside the checkout; the fixture-based tests stand without it.
#include <gtest/gtest.h>

#include <filesystem>

#include "server/app/ingest_service.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

const std::filesystem::path kShared = std::filesystem::path(PERFTRIAGE_SOURCE_DIR) / ".." / "shared" / "data" / "csv";

struct Expected {
  const char* file;
  const char* suite;
  std::int64_t rows, slow, failed;
};

TEST(SharedData, TritonPerformanceFilesGiveProvenanceCounts) {
  if (!std::filesystem::exists(kShared)) GTEST_SKIP() << "no ../shared/data beside the checkout";
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  for (const Expected& e :
       {Expected{"github__workflows__torchinductor__data__huggingface.csv", "huggingface", 36, 4, 0},
        Expected{"github__workflows__torchinductor__data__timm_models.csv", "timm_models", 53, 1, 1},
        Expected{"github__workflows__torch-inductor__data__torchbench.csv", "torchbench", 52, 11, 4}}) {
    UploadMeta meta;
    meta.run = std::string("triton-") + e.suite;
    meta.platform = "A100";
    meta.axes = {e.suite, "float32", "inference", "", "", ""};
    const auto path = kShared / "triton-lang__triton" / e.file;
    auto summary = ingest_files(*store, meta, {{path.filename().string(), testing::read_bytes(path)}});
    ASSERT_TRUE(summary) << summary.error().message;
    const auto& f = summary->files.at(0);
    EXPECT_EQ(f.rows, e.rows) << e.file;
    EXPECT_EQ(f.slow, e.slow) << e.file;
    EXPECT_EQ(f.failed, e.failed) << e.file;
  }
}

TEST(SharedData, EveryReferenceFileIsRecognisedWithoutExplicitAxes) {
  if (!std::filesystem::exists(kShared)) GTEST_SKIP() << "no ../shared/data beside the checkout";
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  int seen = 0;
  for (const auto& dir : {"intel__torch-xpu-ops", "pytorch__pytorch"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kShared / dir)) {
      UploadMeta meta;
      meta.run = "refs";
      meta.platform = "BMG";
      auto summary =
          ingest_files(*store, meta, {{entry.path().filename().string(), testing::read_bytes(entry.path())}});
      ASSERT_TRUE(summary) << entry.path() << ": " << summary.error().message;
      EXPECT_EQ(summary->files.at(0).format.rfind("reference:", 0), 0u) << entry.path();
      EXPECT_GT(summary->files.at(0).expectations, 0) << entry.path();
      ++seen;
    }
  }
  EXPECT_EQ(seen, 10);
}

}  // namespace
}  // namespace perftriage::server
