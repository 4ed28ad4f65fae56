// `perftriage slow` with artifacts attached: the default table is unchanged, --with-findings adds the column,
// --json carries the findings per case.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "schema/artifact_store.hpp"
#include "schema/blob_codec.hpp"
#include "server/cli/cli.hpp"
#include "server/app/ingest_service.hpp"
#include "tests/support/files.hpp"

namespace perftriage::cli {
namespace {

using nlohmann::json;

class SlowCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-slow-cli-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "db.sqlite").string();
    auto store = schema::Store::open(db_);
    ASSERT_TRUE(store) << store.error().message;
    server::UploadMeta meta;
    meta.run = "bmg-release-2.12";
    meta.platform = "BMG";
    ASSERT_TRUE(server::ingest_files(*store, meta, testing::read_tree(testing::fixture("seed_bmg_2.12"))));
    plain_md_ = run({"--db", db_, "--run", "bmg-release-2.12"});
    auto found = schema::find_run(store->db(), "bmg-release-2.12");
    ASSERT_TRUE(found && *found);
    schema::NewArtifact a;
    a.run_id = (*found)->id;
    a.case_ref = {"torchbench", "bfloat16", "inference", "maml", ""};
    a.name = "maml.json";
    a.kind = "kineto";
    a.bytes = "trace bytes";
    a.sha256 = schema::sha256_hex(a.bytes);
    a.result_json = R"({"findings":[{"classifier":"host_bound","verdict":"yes","evidence":"busy 3%"}]})";
    ASSERT_TRUE(schema::insert_artifact(store->db(), a));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string run(Args args, int expected_rc = 0) {
    args.insert(args.begin(), "slow");
    std::ostringstream out, err;
    EXPECT_EQ(run_cli(args, out, err), expected_rc) << err.str();
    return out.str();
  }

  std::filesystem::path dir_;
  std::string db_;
  std::string plain_md_;
};

TEST_F(SlowCliTest, DefaultMarkdownIsUnchangedByArtifacts) {
  EXPECT_EQ(run({"--db", db_, "--run", "bmg-release-2.12"}), plain_md_);
}

TEST_F(SlowCliTest, WithFindingsAddsTheColumn) {
  const std::string md = run({"--db", db_, "--run", "bmg-release-2.12", "--with-findings"});
  EXPECT_NE(md.find("| source csv | findings |\n|---|---|---|---|---:|---:|---|---|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| maml | 1 | 0.664822 | torchbench/bfloat16/inference/performance/"
                    "inductor-results-torchbench-bfloat16-inference-xpu-performance.csv | host_bound: yes |\n"),
            std::string::npos)
      << md;
}

TEST_F(SlowCliTest, JsonCarriesFindingsPerCase) {
  const json cases = json::parse(run({"--db", db_, "--run", "bmg-release-2.12", "--json"}));
  ASSERT_EQ(cases.size(), 11u);
  for (const auto& c : cases) {
    if (c["model"] == "maml") {
      ASSERT_EQ(c["findings"].size(), 1u);
      EXPECT_EQ(c["findings"][0]["verdict"], "yes");
      EXPECT_EQ(c["findings"][0]["evidence"], "busy 3%");
    } else {
      EXPECT_TRUE(c["findings"].empty());
    }
  }
}

TEST_F(SlowCliTest, UnknownOptionIsAUsageError) { run({"--db", db_, "--with-findingz"}, 2); }

}  // namespace
}  // namespace perftriage::cli
