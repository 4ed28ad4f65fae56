// A tracking issue is built from the release's runs with performance results: a references-only run of the release
// (or one whose files held no row) neither becomes the issue's newest run nor the base of its regressions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "schema/tracking_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/bot/tracking.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr const char* kPerfPath = "huggingface/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv";
constexpr const char* kHeader = "dev,name,batch_size,speedup,abs_latency\n";
constexpr const char* kSlowFp = "intel/torch-xpu-ops|BMG|2.12|slow";
constexpr const char* kRegressionsFp = "intel/torch-xpu-ops|BMG|2.12|regressions";

class TrackingEmptyRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-tracking-empty-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    TrackingPolicy policy;
    policy.repo = "intel/torch-xpu-ops";
    policy.platforms = {"BMG"};
    policy.settle_seconds = 0;
    settings.tracking = {policy};
    app_ = std::make_unique<AppContext>(settings);
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::int64_t ingest(const std::string& run, const std::string& release, const std::string& created,
                      std::vector<ingest::InputFile> files, const std::string& torch = "2.12.0+xpu") {
    auto store = app_->store();
    EXPECT_TRUE(store);
    UploadMeta meta;
    meta.run = run;
    meta.platform = "BMG";
    meta.created_at = created;
    meta.torch_version = torch;
    meta.tags = {"release-" + release};
    auto stored = ingest_files(**store, meta, std::move(files));
    EXPECT_TRUE(stored) << stored.error().message;
    auto found = schema::find_run((*store)->db(), run);
    return found && *found ? (*found)->id : 0;
  }
  static std::vector<ingest::InputFile> perf(const std::string& row) {
    return {{kPerfPath, std::string(kHeader) + row}};
  }
  static std::vector<ingest::InputFile> references() {
    return {{"inductor_huggingface_inference.csv", "name,float32,bfloat16\nBert,pass,pass\n"}};
  }
  TrackingPass pass() {
    auto p = run_tracking_pass(*app_, unix_ms() + 60'000);
    EXPECT_TRUE(p) << p.error().message;
    return p ? *p : TrackingPass{};
  }
  schema::TrackingState state(const std::string& fp) {
    auto store = app_->store();
    EXPECT_TRUE(store);
    auto s = schema::tracking_state((*store)->db(), fp);
    EXPECT_TRUE(s && *s) << fp;
    return s && *s ? **s : schema::TrackingState{};
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
};

TEST_F(TrackingEmptyRunTest, ARunWithoutPerformanceResultsChangesNoTrackingIssue) {
  ingest("bmg-2.11", "2.11", "2026-04-01T00:00:00Z", perf("xpu,Bert,8,1.5,10\n"), "2.11.0+xpu");
  // Newer than the 2.11 run, older than the 2.12 one: never the base of the regressions.
  ingest("ref-2.11", "2.11", "2026-04-15T00:00:00Z", references(), "2.11.0+xpu");
  const auto rc1 = ingest("bmg-2.12-rc1", "2.12", "2026-05-01T00:00:00Z", perf("xpu,Bert,8,0.5,30\n"));
  EXPECT_GT(pass().actions, 0);
  EXPECT_EQ(state(kSlowFp).run_id, rc1);
  const json regressions = json::parse(state(kRegressionsFp).published);
  EXPECT_TRUE(regressions.value("cases", json::object()).contains("huggingface/bfloat16/inference/Bert"))
      << regressions.dump();

  // The release's references, then a run whose performance file held no row: neither is the issue's newest run.
  ingest("ref-xpu", "2.12", "2026-05-02T00:00:00Z", references(), "2.12.1+xpu");
  ingest("bmg-2.12-broken", "2.12", "2026-05-03T00:00:00Z", {{kPerfPath, kHeader}}, "2.12.1+xpu");
  EXPECT_EQ(pass().actions, 0);
  EXPECT_EQ(state(kSlowFp).run_id, rc1);
  EXPECT_EQ(state(kRegressionsFp).run_id, rc1);
  EXPECT_TRUE(state(kSlowFp).is_open);
  EXPECT_TRUE(state(kRegressionsFp).is_open);
}

TEST_F(TrackingEmptyRunTest, AReleaseOfReferencesAloneOpensNoIssue) {
  ingest("ref-xpu", "2.12", "2026-05-02T00:00:00Z", references());
  EXPECT_EQ(pass().actions, 0);
  auto store = app_->store();
  ASSERT_TRUE(store);
  auto s = schema::tracking_state((*store)->db(), kSlowFp);
  ASSERT_TRUE(s);
  EXPECT_FALSE(*s);
}

}  // namespace
}  // namespace perftriage::server
