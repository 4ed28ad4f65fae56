// The CLI through the real binary: ingest --json, slow in every format, runs, and its refusals.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

using nlohmann::json;

struct Ran {
  int status = -1;
  std::string out;
};

// Runs the binary with `args` (shell-quoted by the caller), stdout captured, stderr to the given file.
Ran run(const std::string& args, const std::string& err_file = "/dev/null") {
  auto r = testing::run_shell(std::string(PERFTRIAGE_BINARY) + " " + args + " 2>" + err_file + " </dev/null");
  return {r.status, std::move(r.out)};
}

class CliE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-cli-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    db_ = perftriage::testing_support::e2e_db((dir_ / "db.sqlite").string());
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

constexpr const char* kResultHeader = "dev,name,batch_size,speedup,abs_latency\n";

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST_F(CliE2E, VersionAndHelpListEveryOptionWithItsDefault) {
  auto version = run("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_FALSE(version.out.empty());
  EXPECT_NE(version.out.find('.'), std::string::npos) << version.out;  // the project version, e.g. 0.1.0

  auto help = run("help");
  EXPECT_EQ(help.status, 0);
  for (const char* command : {"serve", "ingest", "slow", "runs", "compare", "report", "classify", "label", "token",
                              "backup", "restore", "retention", "config"}) {
    EXPECT_NE(help.out.find(std::string("  ") + command), std::string::npos) << command << "\n" << help.out;
    auto own = run(std::string(command) + " --help");
    EXPECT_EQ(own.status, 0) << command;
    EXPECT_NE(own.out.find("--help"), std::string::npos) << command;
  }
  const auto serve = run("serve --help").out;
  for (const char* option : {"--listen", "--github-api", "--github-max-attempts", "--threshold", "--max-body-mb",
                             "--threads", "--read-workers", "--heavy-queue", "--body-timeout-s", "--db"}) {
    EXPECT_NE(serve.find(option), std::string::npos) << option << "\n" << serve;
  }
  EXPECT_NE(serve.find("127.0.0.1:8080"), std::string::npos) << serve;  // defaults are shown
  EXPECT_NE(serve.find("https://api.github.com"), std::string::npos) << serve;
  EXPECT_NE(serve.find("PERFTRIAGE_LIMITS_MAX_BODY_MB"), std::string::npos) << serve;
  const auto slow = run("slow --help").out;
  EXPECT_NE(slow.find("var/perftriage.sqlite"), std::string::npos) << slow;
  EXPECT_EQ(run("help ingest").out, run("ingest --help").out);
}

TEST_F(CliE2E, AnOptionIsNeverTheValueOfAnother) {
  const auto err = (dir_ / "err.txt").string();
  const auto csv = dir_ / "huggingface" / "float32" / "inference" / "performance" / "r.csv";
  write_file(csv, std::string(kResultHeader) + "xpu,A,8,1.5,10\n");
  auto r = run("ingest --db " + db_ + " --platform --run x " + csv.string(), err);
  EXPECT_EQ(r.status, 2);
  const auto said = testing::read_bytes(err);
  EXPECT_NE(said.find("--platform"), std::string::npos) << said;
  EXPECT_FALSE(std::filesystem::exists(db_));  // nothing ran
  // --tag takes one value: the path after it stays a path.
  r = run("ingest --db " + db_ + " --platform BMG --run r1 --json --tag nightly " + csv.string(), err);
  ASSERT_EQ(r.status, 0) << testing::read_bytes(err);
  EXPECT_EQ(json::parse(r.out)["files"].size(), 1u);
}

TEST_F(CliE2E, ReadOnlyCommandsRefuseAMissingDatabase) {
  const auto missing = (dir_ / "nowhere" / "missing.sqlite").string();
  const auto err = (dir_ / "err.txt").string();
  for (const std::string cmd : {"slow", "runs", "compare --target k", "report --run k", "runs delete k"}) {
    auto r = run(cmd + " --db " + missing, err);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_NE(testing::read_bytes(err).find(missing), std::string::npos) << cmd << ": " << testing::read_bytes(err);
    EXPECT_FALSE(std::filesystem::exists(missing)) << cmd;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "nowhere")) << cmd;
  }
  // PERFTRIAGE_DB is the default database of every command: ingest creates it, runs reads it.
  ::setenv("PERFTRIAGE_DB", db_.c_str(), 1);
  auto ingested = run("ingest --platform BMG --run r1 " + testing::fixture("seed_bmg_2.12"));
  auto listed = run("runs --json");
  ::unsetenv("PERFTRIAGE_DB");
  ASSERT_EQ(ingested.status, 0);
  if (!testing_support::on_postgres()) {
    EXPECT_TRUE(std::filesystem::exists(db_));  // a URL names no file
  }
  ASSERT_EQ(listed.status, 0);
  EXPECT_EQ(json::parse(listed.out).size(), 1u);
}

TEST_F(CliE2E, RunsAlignsItsColumnsAndReportDefaultsToSlow) {
  auto ingest = run("ingest --db " + db_ +
                    " --platform BMG --run bmg-release-2.12 --torch-version "
                    "2.12.0.dev20260101+gitabcdef0123456789-xpu " +
                    testing::fixture("seed_bmg_2.12"));
  ASSERT_EQ(ingest.status, 0);
  auto runs = run("runs --db " + db_);
  ASSERT_EQ(runs.status, 0);
  const auto header = runs.out.substr(0, runs.out.find('\n'));
  const auto row = runs.out.substr(header.size() + 1, runs.out.find('\n', header.size() + 1) - header.size() - 1);
  const auto created = header.find("created");
  ASSERT_NE(created, std::string::npos) << runs.out;
  EXPECT_EQ(row.find("2.12.0.dev20260101+gitabcdef0123456789-xpu  "), header.find("torch")) << runs.out;
  EXPECT_EQ(row[created - 1], ' ') << runs.out;  // the timestamp starts where its column does, after a space
  EXPECT_EQ(row.substr(created, 2), "20") << runs.out;
  auto md = run("runs --db " + db_ + " --format md");
  EXPECT_EQ(md.out.rfind("| run | platform | torch | created | files | rows | slow | failed | acc_fail |\n", 0), 0u)
      << md.out;

  auto report = run("report --db " + db_ + " --run bmg-release-2.12");
  ASSERT_EQ(report.status, 0);
  EXPECT_EQ(report.out.rfind("[BMG] ", 0), 0u) << report.out;
  EXPECT_NE(report.out.find("## Representative Cases"), std::string::npos);
  EXPECT_EQ(run("report --db " + db_ + " --run bmg-release-2.12 --kind slow").out, report.out);
}

TEST_F(CliE2E, IngestPrintsTotalsAndReportsEveryBadFile) {
  auto ok = run("ingest --db " + db_ + " --platform BMG --run r1 " + testing::fixture("seed_bmg_2.12"));
  ASSERT_EQ(ok.status, 0);
  EXPECT_NE(ok.out.find("\ntotal: 1 run, 5 files, 5 stored; "), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(" rows, 11 slow, "), std::string::npos) << ok.out;

  const auto tree = dir_ / "tree";
  write_file(tree / "huggingface/float32/inference/performance/a.csv",
             std::string(kResultHeader) + "xpu,A,8,1.5,10\nxpu,B,8,oops,10\n");
  write_file(tree / "huggingface/float32/training/performance/b.csv", std::string(kResultHeader) + "xpu,A,8,1.5,10\n");
  write_file(tree / "timm_models/float16/inference/performance/c.csv",
             std::string(kResultHeader) + "xpu,A,8,1.5,10\nxpu,C,8,1.0,10\nxpu,D,eight,1.0,10\n");
  const auto err = (dir_ / "err.txt").string();
  auto bad = run("ingest --db " + db_ + " --platform BMG --run r2 --json " + tree.string(), err);
  EXPECT_EQ(bad.status, 1);
  const auto errors = json::parse(bad.out)["errors"];
  ASSERT_EQ(errors.size(), 2u) << bad.out;
  EXPECT_EQ(errors[0]["file"], "huggingface/float32/inference/performance/a.csv");
  EXPECT_EQ(errors[0]["line"], 3);
  EXPECT_EQ(errors[0]["column"], "speedup");
  EXPECT_EQ(errors[1]["file"], "timm_models/float16/inference/performance/c.csv");
  EXPECT_EQ(errors[1]["line"], 4);
  EXPECT_EQ(errors[1]["column"], "batch_size");
  const auto said = testing::read_bytes(err);
  EXPECT_NE(said.find("a.csv:3: column speedup"), std::string::npos) << said;
  EXPECT_NE(said.find("c.csv:4: column batch_size"), std::string::npos) << said;
  EXPECT_EQ(json::parse(run("runs --db " + db_ + " --json").out).size(), 1u);  // nothing of r2: all or nothing
}

TEST_F(CliE2E, OneFileNamedThreeWaysIsStoredOnce) {
  const std::string name = "inductor-results-huggingface-float32-inference-xpu-performance.csv";
  write_file(dir_ / name, std::string(kResultHeader) + "xpu,A,8,0.5,10\n");
  const std::string cd = "cd " + dir_.string() + " && " + PERFTRIAGE_BINARY + " ";
  auto once = run("--version >/dev/null && " + cd + "ingest --db " + db_ + " --platform BMG --run r --json " + name +
                  " ./" + name + " " + (dir_ / name).string());
  ASSERT_EQ(once.status, 0) << once.out;
  ASSERT_EQ(json::parse(once.out)["files"].size(), 1u) << once.out;
  EXPECT_EQ(json::parse(once.out)["files"][0]["path"], name);
  for (const std::string& given : {"./" + name, (dir_ / name).string(), name}) {
    auto again =
        run("--version >/dev/null && " + cd + "ingest --db " + db_ + " --platform BMG --run r --json " + given);
    ASSERT_EQ(again.status, 0) << again.out;
    EXPECT_EQ(json::parse(again.out)["files"][0]["status"], "duplicate") << given;
    EXPECT_EQ(json::parse(again.out)["files"][0]["path"], name) << given;
  }
  const auto runs = json::parse(run("runs --db " + db_ + " --json").out);
  EXPECT_EQ(runs[0]["counts"]["files"], 1) << runs.dump();
}

TEST_F(CliE2E, ExplicitAxesDoNotRelabelTheReferenceFilesOfADirectory) {
  const auto tree = dir_ / "tree";
  write_file(tree / "huggingface/float32/inference/performance/r.csv", std::string(kResultHeader) + "xpu,A,8,1.5,10\n");
  write_file(tree / "inductor_huggingface_inference.csv", "name,float32,bfloat16\nA,pass,pass\n");
  auto r =
      run("ingest --db " + db_ + " --platform BMG --run r --json --mode training --dtype float16 " + tree.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto files = json::parse(r.out)["files"];
  ASSERT_EQ(files.size(), 2u) << r.out;
  for (const auto& f : files) {
    if (f["kind"] == "reference") {
      EXPECT_EQ(f["mode"], "inference") << f.dump();  // from its own name
      EXPECT_NE(f["dtype"], "float16") << f.dump();
    } else {
      EXPECT_EQ(f["mode"], "training") << f.dump();  // the explicit axes label the result files
      EXPECT_EQ(f["dtype"], "float16") << f.dump();
    }
  }
}

// The torch-xpu-ops reference CSVs alone make a run with no performance row: `slow --platform` never takes it for
// the platform's latest run (none left: exit 1 saying why), and asked for by key it says so and exits 1.
TEST_F(CliE2E, SlowNeverTakesARunWithoutPerformanceResultsForTheLatest) {
  const auto refs = dir_ / "ci_expected_accuracy";
  write_file(refs / "inductor_xpu_combined.csv", testing::read_fixture("ingest/ref_xpu_combined.csv"));
  write_file(refs / "inductor_torchbench_training.csv",
             testing::read_fixture("ingest/ref_xpu_wide_inductor_torchbench_training.csv"));
  auto ingested =
      run("ingest --db " + db_ + " --platform BMG --run ref-xpu --created-at 2026-06-01T00:00:00Z " + refs.string());
  ASSERT_EQ(ingested.status, 0) << ingested.out;
  const auto err = (dir_ / "err.txt").string();

  auto none = run("slow --db " + db_ + " --platform BMG", err);
  EXPECT_EQ(none.status, 1) << none.out;
  auto said = testing::read_bytes(err);
  EXPECT_NE(said.find("no run with performance results"), std::string::npos) << said;
  EXPECT_NE(said.find("'ref-xpu'"), std::string::npos) << said;
  EXPECT_NE(said.find("(no_performance_run)"), std::string::npos) << said;

  ingested = run("ingest --db " + db_ + " --platform BMG --run bmg-release-2.12 --created-at 2026-05-01T00:00:00Z " +
                 testing::fixture("seed_bmg_2.12"));
  ASSERT_EQ(ingested.status, 0) << ingested.out;
  auto md = run("slow --db " + db_ + " --platform BMG", err);
  EXPECT_EQ(md.status, 0) << testing::read_bytes(err);
  EXPECT_EQ(std::count(md.out.begin(), md.out.end(), '\n'), 2 + 11) << md.out;  // the older run's table
  EXPECT_EQ(testing::read_bytes(err), "");
  auto every = run("slow --db " + db_ + " --json", err);
  EXPECT_EQ(every.status, 0);
  EXPECT_EQ(json::parse(every.out).size(), 11u);

  auto asked = run("slow --db " + db_ + " --run ref-xpu --json", err);
  EXPECT_EQ(asked.status, 1);
  EXPECT_EQ(asked.out, "[]\n");  // still the table, empty
  said = testing::read_bytes(err);
  EXPECT_NE(said.find("run 'ref-xpu' has no performance results"), std::string::npos) << said;
  EXPECT_NE(said.find("(no_performance_results)"), std::string::npos) << said;
}

// The learned layer end to end: a model trained from a JSONL history, then `label` naming which layer decided each
// row, and `label-eval` never scoring an issue the model saw.
TEST_F(CliE2E, TrackerTrainThenLabelShowsWhichLayerDecided) {
  std::string history, set;
  for (int i = 0; i < 30; ++i) {
    const bool bmg = i % 2 == 0;
    json is = {{"repo", "intel/torch-xpu-ops"},
               {"number", 100 + i},
               {"title", std::string(i % 3 ? "crash" : "hang") + " on " + (bmg ? "zorbix" : "quokka")},
               {"labels", {bmg ? "hw: BMG" : "hw: PVC"}},
               {"body", ""}};
    history += is.dump() + "\n";
    if (i < 2) set += is.dump() + "\n";  // two issues the model saw
  }
  set += json{{"repo", "intel/torch-xpu-ops"}, {"number", 7}, {"title", "abort on zorbix"}, {"labels", {"hw: BMG"}}}
             .dump() +
         "\n";
  write_file(dir_ / "history.jsonl", history);
  write_file(dir_ / "set.jsonl", set);
  write_file(dir_ / "empty.md", "");
  const auto model = (dir_ / "model.json").string();
  auto trained = run("tracker train --from " + (dir_ / "history.jsonl").string() + " --out " + model + " --json");
  ASSERT_EQ(trained.status, 0) << trained.out;
  EXPECT_EQ(json::parse(trained.out)["issues"], 30);
  EXPECT_EQ(json::parse(testing::read_bytes(model))["trained_on"].size(), 30u);

  const std::string label = "label --title 'segfault on zorbix card' --body-file " + (dir_ / "empty.md").string();
  auto both = json::parse(run(label + " --model " + model + " --json").out);
  const auto& axes = both["axes"];
  auto hw = std::find_if(axes.begin(), axes.end(), [](const json& a) { return a["axis"] == "hw"; });
  ASSERT_NE(hw, axes.end()) << both.dump();
  EXPECT_EQ((*hw)["layer"], "model");
  EXPECT_EQ((*hw)["value"], "hw: BMG");
  EXPECT_NE((*hw)["reason"].get<std::string>().find("zorbix'"), std::string::npos);
  EXPECT_NE(run(label + " --model " + model).out.find("layer"), std::string::npos);  // the table's column
  auto rules = json::parse(run(label + " --model " + model + " --layers rules --json").out);
  for (const auto& a : rules["axes"]) EXPECT_NE(a["layer"], "model") << a.dump();

  auto eval = run("label-eval " + (dir_ / "set.jsonl").string() + " --model " + model + " --layers all");
  EXPECT_EQ(eval.status, 0);
  EXPECT_NE(eval.out.find("2 skipped"), std::string::npos) << eval.out;
  EXPECT_NE(eval.out.find("model P / R"), std::string::npos);
  EXPECT_EQ(run("label-eval " + (dir_ / "set.jsonl").string() + " --model none --layers model").status, 1);
  EXPECT_EQ(run("label-eval " + (dir_ / "set.jsonl").string() + " --layers sideways").status, 1);
  EXPECT_NE(run("tracker train --out " + model + " --db " + db_ + " --repo intel/torch-xpu-ops").status, 0);
}

}  // namespace
}  // namespace perftriage
