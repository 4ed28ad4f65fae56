// POST /api/v1/label against the real binary, with the seed fixture run ingested so the answer is data-backed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/e2e/bot/bot_support.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;

class LabelE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-label-e2e-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    const std::string db = perftriage::testing_support::e2e_db((dir_ / "db.sqlite").string());
    const std::string cmd = std::string(PERFTRIAGE_BINARY) + " ingest --db " + db +
                            " --platform BMG --run bmg-release-2.12 " + fixture("seed_bmg_2.12") + " > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    server_ = new ServerProcess(PERFTRIAGE_BINARY, {"--db", db});
  }
  static void TearDownTestSuite() {
    delete server_;
    std::filesystem::remove_all(dir_);
  }
  static HttpReply post(const std::string& body) {
    return http_call(server_->port(), "POST", "/api/v1/label", "application/json", body);
  }
  static std::string error_code(const HttpReply& r) { return json::parse(r.body)["error"]["code"]; }

  static inline std::filesystem::path dir_;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(LabelE2E, SeedIssueIsLabeledWithTheMeasuredSpeedup) {
  auto r = post(json{{"title", kSeedTitle}, {"body", seed_body()}, {"repo", kRepo}, {"number", kSeedNumber}}.dump());
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = json::parse(r.body);
  auto labels = j["labels"].get<std::vector<std::string>>();
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"dtype: bfloat16", "hw: BMG", "inference", "module: inductor",
                                              "performance", "test: e2e"}));
  EXPECT_EQ(j["cases"].size(), 11u);
  std::string perf;
  for (const auto& a : j["axes"])
    if (a["value"] == "performance") perf = a["reason"];
  EXPECT_NE(perf.find("0.662224"), std::string::npos) << perf;
  EXPECT_NE(perf.find("bmg-release-2.12"), std::string::npos) << perf;
  const std::string comment = j["comment"];
  EXPECT_EQ(comment.rfind("<!-- perftriage:label -->", 0), 0u);
  EXPECT_NE(comment.find("label-issue: intel/torch-xpu-ops#3761"), std::string::npos);
}

// "layers" chooses the labeler's layers per request. A unit-test failure report on Linux under gated: the tracker's
// history leaves hw, os and dtype off issues like it (its gates for hw: PVC, os: Linux and dtype: float32), so those
// are withheld and listed with their reasons; both (the default) keeps them.
TEST_F(LabelE2E, LayersGatedWithholdsAndSaysWhy) {
  const json issue{{"title", "[PVC] UT failures in test_ops_xpu.py on Linux"},
                   {"body",
                    "FAILED test/xpu/test_ops_xpu.py::TestCommonXPU::test_compare_cpu_add_xpu_float32\n"
                    "OS: Ubuntu 22.04.4 LTS (x86_64)\n"},
                   {"repo", kRepo},
                   {"number", 4100}};
  json gated = issue;
  gated["layers"] = "gated";
  auto r = post(gated.dump());
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = json::parse(r.body);
  auto labels = j["labels"].get<std::vector<std::string>>();
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"functionality", "module: ops", "test: ut"}));
  EXPECT_EQ(withheld_values(j), (std::vector<std::string>{"dtype: float32", "hw: PVC", "os: Linux"}));
  for (const auto& w : j["withheld"]) EXPECT_EQ(w["reason"].get<std::string>().rfind("Withheld: ", 0), 0u) << w;

  json both = issue;
  both["layers"] = "both";
  auto b = post(both.dump());
  ASSERT_EQ(b.status, 200u) << b.body;
  const auto jb = json::parse(b.body);
  EXPECT_FALSE(jb.contains("withheld")) << b.body;
  EXPECT_EQ(jb["labels"].size(), 6u) << b.body;  // the three above and the three gated ones
}

TEST_F(LabelE2E, LayersMustBeALayerName) {
  for (const json& layers : {json("bogus"), json(2), json::array({"gated"})}) {
    auto r = post(json{{"title", "t"}, {"layers", layers}}.dump());
    EXPECT_EQ(r.status, 400u) << layers.dump();
    EXPECT_EQ(error_code(r), "bad_layers") << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["column"], "layers") << r.body;
  }
}

TEST_F(LabelE2E, ExistingLabelsAndTheOtherTaxonomyAreAccepted) {
  auto r =
      post(json{{"title", kSeedTitle}, {"body", seed_body()}, {"labels", {"hw: BMG"}}, {"taxonomy", "pytorch"}}.dump());
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_TRUE(json::parse(r.body)["labels"].is_array());
}

TEST_F(LabelE2E, BadJsonIs400) {
  auto r = post("{\"title\": ");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "bad_json");
}

TEST_F(LabelE2E, NonObjectIs400) {
  auto r = post("[1, 2]");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "bad_json");
}

TEST_F(LabelE2E, MissingTitleIs400) {
  auto r = post(json{{"body", "x"}}.dump());
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "missing_title");
}

TEST_F(LabelE2E, EmptyTitleIs400) {
  auto r = post(json{{"title", ""}}.dump());
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "missing_title");
}

TEST_F(LabelE2E, LabelsMustBeStrings) {
  auto r = post(json{{"title", "t"}, {"labels", {1, 2}}}.dump());
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "bad_labels");
}

TEST_F(LabelE2E, NumberMustBeAnInteger) {
  auto r = post(json{{"title", "t"}, {"number", "12"}}.dump());
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "bad_number");
}

TEST_F(LabelE2E, UnknownTaxonomyIs400AndNoPathIsRead) {
  auto r = post(json{{"title", "t"}, {"taxonomy", "/etc/passwd"}}.dump());
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_code(r), "unknown_taxonomy");
}

}  // namespace
}  // namespace perftriage::testing
