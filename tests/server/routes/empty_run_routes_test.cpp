// A run without performance results (the reference CSVs of torch-xpu-ops alone, or performance files whose rows all
// failed to parse) is never "the latest run" of GET /api/v1/slow and the dashboard overview; asked for by key, the
// slow answer says so in a warning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr const char* kPerfPath = "huggingface/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv";
constexpr const char* kHeader = "dev,name,batch_size,speedup,abs_latency\n";

class EmptyRunRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-empty-run-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
    ingest("bmg-old", "BMG", "2026-01-01T00:00:00Z", {{kPerfPath, std::string(kHeader) + "xpu,Bert,8,1.5,10\n"}});
    ingest("bmg-nightly", "BMG", "2026-01-02T00:00:00Z", {{kPerfPath, std::string(kHeader) + "xpu,Bert,8,0.5,10\n"}});
    // Newer than the nightly: the references alone, then a run whose one performance file held a header and no row.
    ingest("ref-xpu", "BMG", "2026-01-03T00:00:00Z",
           {{"inductor_huggingface_inference.csv", "name,float32,bfloat16\nBert,pass,pass\n"}});
    ingest("bmg-broken", "BMG", "2026-01-04T00:00:00Z", {{kPerfPath, kHeader}});
    ingest("pvc-ref", "PVC", "2026-01-05T00:00:00Z",
           {{"inductor_huggingface_inference.csv", "name,float32,bfloat16\nBert,pass,pass\n"}});
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  void ingest(const std::string& run, const std::string& platform, const std::string& created,
              std::vector<ingest::InputFile> files) {
    auto store = app_->store();
    ASSERT_TRUE(store);
    UploadMeta meta;
    meta.run = run;
    meta.platform = platform;
    meta.created_at = created;
    auto stored = ingest_files(**store, meta, std::move(files));
    ASSERT_TRUE(stored) << stored.error().message;
  }
  json get(const std::string& target, unsigned expected = 200) {
    auto r = testing::call_route(router_, *app_, "GET", target, {}, {});
    EXPECT_EQ(r.status, expected) << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_;
};

TEST_F(EmptyRunRoutesTest, SlowOfAPlatformReadsItsNewestRunWithPerformanceResults) {
  const json j = get("/api/v1/slow?platform=bmg");
  EXPECT_EQ(j["runs"], json::array({"bmg-nightly"})) << j.dump();
  ASSERT_EQ(j["cases"].size(), 1u) << j.dump();
  EXPECT_EQ(j["cases"][0]["model"], "Bert");
  EXPECT_FALSE(j.contains("warning")) << j.dump();
}

TEST_F(EmptyRunRoutesTest, SlowOfEveryPlatformSkipsRunsWithoutPerformanceResults) {
  const json j = get("/api/v1/slow");
  EXPECT_EQ(j["runs"], json::array({"bmg-nightly"})) << j.dump();  // PVC has none: no run of it
  EXPECT_EQ(j["cases"].size(), 1u) << j.dump();
}

TEST_F(EmptyRunRoutesTest, APlatformWithoutPerformanceResultsIsNotFoundAndSaysWhy) {
  const json j = get("/api/v1/slow?platform=PVC", 404);
  EXPECT_EQ(j["error"]["code"], "no_performance_run") << j.dump();
  const std::string message = j["error"]["message"];
  EXPECT_NE(message.find("pvc-ref"), std::string::npos) << message;
  EXPECT_EQ(get("/api/v1/slow?platform=A100", 404)["error"]["code"], "no_run");
}

TEST_F(EmptyRunRoutesTest, SlowOfARunWithoutPerformanceResultsWarns) {
  for (const std::string key : {"ref-xpu", "bmg-broken"}) {
    SCOPED_TRACE(key);
    const json j = get("/api/v1/slow?run=" + key);
    EXPECT_EQ(j["runs"], json::array({key}));
    EXPECT_TRUE(j["cases"].empty());
    ASSERT_TRUE(j.contains("warning")) << j.dump();
    EXPECT_EQ(j["warning"]["code"], "no_performance_results");
    const std::string message = j["warning"]["message"];
    EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("no performance results"), std::string::npos) << message;
  }
  EXPECT_FALSE(get("/api/v1/slow?run=bmg-nightly").contains("warning"));
}

TEST_F(EmptyRunRoutesTest, TheOverviewShowsTheNewestRunWithPerformanceResults) {
  const json j = get("/api/v1/dashboard/overview");
  ASSERT_EQ(j["platforms"].size(), 1u) << j.dump();  // PVC has nothing to show
  const json& bmg = j["platforms"][0];
  EXPECT_EQ(bmg["platform"], "BMG");
  EXPECT_EQ(bmg["latest"]["key"], "bmg-nightly") << bmg.dump();
  EXPECT_EQ(bmg["previous"]["key"], "bmg-old") << bmg.dump();
  EXPECT_EQ(bmg["summary"]["performance_rows"], 1);
  ASSERT_EQ(bmg["history"].size(), 2u) << bmg.dump();
  EXPECT_EQ(bmg["history"][1]["run"], "bmg-nightly");
}

}  // namespace
}  // namespace perftriage::server
