// The CLI of issue 2 through the real binary: ingest --json, slow in every format, runs, and its refusals.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"

namespace perftriage {
namespace {

using nlohmann::json;

struct Ran {
  int status = -1;
  std::string out;
};

// Runs the binary with `args` (shell-quoted by the caller), stdout captured, stderr to the given file.
Ran run(const std::string& args, const std::string& err_file = "/dev/null") {
  const std::string cmd = std::string(PERFTRIAGE_BINARY) + " " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Ran r;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class CliE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("perftriage-cli-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "db.sqlite").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(CliE2E, IngestTreeThenSlowInEveryFormat) {
  auto ingest = run("ingest --db " + db_ + " --platform BMG --run bmg-release-2.12 --torch-version 2.12.0+xpu --json " +
                    testing::fixture("seed_bmg_2.12"));
  ASSERT_EQ(ingest.status, 0) << ingest.out;
  const auto summary = json::parse(ingest.out);
  EXPECT_EQ(summary["run"], "bmg-release-2.12");
  ASSERT_EQ(summary["files"].size(), 5u);
  EXPECT_TRUE(summary["errors"].empty());
  for (const char* key : {"path", "suite", "dtype", "mode", "kind", "device", "rows", "slow", "failed",
                          "accuracy_failed", "duplicates_dropped", "status"}) {
    EXPECT_TRUE(summary["files"][0].contains(key)) << key;
  }
  EXPECT_EQ(summary["files"][0]["path"].get<std::string>().rfind("huggingface/", 0), 0u);  // relative to the tree

  auto md = run("slow --db " + db_ + " --platform BMG --format md");
  ASSERT_EQ(md.status, 0);
  EXPECT_EQ(md.out.rfind("| suite | dtype | mode | model | batch_size | speedup | source csv |\n", 0), 0u);
  EXPECT_EQ(std::count(md.out.begin(), md.out.end(), '\n'), 2 + 11);

  auto js = run("slow --db " + db_ + " --run bmg-release-2.12 --format json");
  ASSERT_EQ(js.status, 0);
  const auto cases = json::parse(js.out);
  ASSERT_TRUE(cases.is_array());
  ASSERT_EQ(cases.size(), 11u);
  for (const char* key : {"suite", "dtype", "mode", "model", "batch_size", "speedup", "source"}) {
    EXPECT_TRUE(cases[0].contains(key)) << key;
  }

  auto csv = run("slow --db " + db_ + " --run bmg-release-2.12 --format csv --threshold 0.7");
  ASSERT_EQ(csv.status, 0);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 4);

  auto runs = run("runs --db " + db_ + " --json");
  ASSERT_EQ(runs.status, 0);
  const auto list = json::parse(runs.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["counts"]["slow"], 11);
}

TEST_F(CliE2E, RefusalsNameTheFileAndExitNonZero) {
  const auto err = (dir_ / "err.txt").string();
  auto missing = run("ingest --db " + db_ + " --platform BMG --json " + (dir_ / "nope.csv").string(), err);
  EXPECT_EQ(missing.status, 1);
  const auto j = json::parse(missing.out);
  EXPECT_EQ(j["errors"][0]["code"], "no_such_file");
  EXPECT_NE(testing::read_bytes(err).find("nope.csv"), std::string::npos);

  const auto bad = dir_ / "huggingface" / "float32" / "inference" / "performance";
  std::filesystem::create_directories(bad);
  {
    std::ofstream f(bad / "inductor-results-huggingface-float32-inference-xpu-performance.csv");
    f << "dev,name,batch_size,speedup,abs_latency\nxpu,A,8,1.5,10\nxpu,B,8,oops,10\n";
  }
  auto bad_number = run("ingest --db " + db_ + " --platform BMG --json " + dir_.string(), err);
  EXPECT_EQ(bad_number.status, 1);
  const auto e = json::parse(bad_number.out)["errors"][0];
  EXPECT_EQ(e["code"], "bad_number");
  EXPECT_EQ(e["line"], 3);
  EXPECT_EQ(e["column"], "speedup");
  EXPECT_EQ(run("runs --db " + db_ + " --json").out, "[]\n");  // nothing stored

  EXPECT_EQ(run("ingest --db " + db_ + " " + dir_.string()).status, 1);  // no --platform
  EXPECT_EQ(run("slow --db " + db_ + " --format yaml").status, 2);
  EXPECT_EQ(run("serve --db " + db_ + " --max-body-mb lots").status, 2);
  EXPECT_EQ(run("no-such-command").status, 2);
}

}  // namespace
}  // namespace perftriage
