// End-to-end: the real binary serves compare, history, backlog and the report bodies; the CLI reads the same DB.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

using nlohmann::json;
using testing::http_call;

std::string multipart(const std::string& boundary, const std::vector<ingest::InputFile>& files,
                      const std::string& meta) {
  std::string body = "--" + boundary +
                     "\r\nContent-Disposition: form-data; name=\"meta\"\r\n"
                     "Content-Type: application/json\r\n\r\n" +
                     meta + "\r\n";
  for (const auto& f : files) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + f.path +
            "\"\r\nContent-Type: text/csv\r\n\r\n" + f.bytes + "\r\n";
  }
  return body + "--" + boundary + "--\r\n";
}

class CompareE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-e2e-compare-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    db_ = testing_support::e2e_db((dir_ / "db.sqlite").string());
    server_ = new testing::ServerProcess(PERFTRIAGE_BINARY, {"--db", db()});
    upload("compare/base", R"({"run":"bmg-2.12","platform":"BMG","torch_version":"2.12.0+xpu",)"
                           R"("created_at":"2026-01-01T00:00:00Z","tags":["release-2.12"]})");
    upload("compare/target", R"({"run":"bmg-2.13","platform":"BMG","torch_version":"2.13.0+xpu",)"
                             R"("created_at":"2026-02-01T00:00:00Z","tags":["release-2.13"]})");
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->stop(), 0);
    delete server_;
    std::filesystem::remove_all(dir_);
  }
  static std::string db() { return db_; }
  static void upload(const std::string& fixture_dir, const std::string& meta) {
    const auto files = testing::read_tree(testing::fixture(fixture_dir));
    auto r = call("POST", "/api/v1/uploads", "multipart/form-data; boundary=XyZ", multipart("XyZ", files, meta));
    ASSERT_EQ(r.status, 201u) << r.body;
  }
  static testing::HttpReply call(const std::string& method, const std::string& target, const std::string& type = {},
                                 const std::string& body = {}) {
    return http_call(server_->port(), method, target, type, body);
  }
  static json get_json(const std::string& target, unsigned status = 200) {
    auto r = call("GET", target);
    EXPECT_EQ(r.status, status) << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  // Runs the CLI; returns its exit code, stdout in `out`.
  static int cli(const std::string& args, std::string& out) {
    const std::string cmd = std::string(PERFTRIAGE_BINARY) + " " + args + " --db " + db() + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    out.clear();
    while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static inline std::filesystem::path dir_;
  static inline std::string db_;  // the SQLite file, or a PostgreSQL database's URL (pg: tests)
  static inline testing::ServerProcess* server_ = nullptr;
};

TEST_F(CompareE2E, CompareJsonWithBaseByRule) {
  auto j = get_json("/api/v1/compare?base=previous&target=bmg-2.13");
  EXPECT_EQ(j["base"], "bmg-2.12");
  EXPECT_EQ(j["target"], "bmg-2.13");
  ASSERT_EQ(j["cases"].size(), 9u);
  const auto& b = j["cases"][1];
  EXPECT_EQ(b["model"], "ModelB");
  EXPECT_DOUBLE_EQ(b["base_speedup"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(b["target_speedup"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(b["inductor_ratio"].get<double>(), 0.8);
  EXPECT_EQ(b["verdict"], "regression");
  EXPECT_TRUE(b["status_change"].is_null());
  EXPECT_EQ(j["cases"][3]["status_change"], "new_failed");
  const auto& overall = j["aggregates"]["overall"];
  EXPECT_NEAR(overall["base"]["geomean_speedup"]["unclipped_hud"].get<double>(), 1.0844717711976986, 1e-12);
  EXPECT_NEAR(overall["target"]["geomean_speedup"]["clipped_at_1_runner"].get<double>(), 1.2619146889603865, 1e-12);
  EXPECT_EQ(j["aggregates"]["by_suite"]["torchbench"]["compared"], 2);
}

TEST_F(CompareE2E, CompareByTagAndThresholds) {
  auto j = get_json("/api/v1/compare?base=release-2.12&target=bmg-2.13&regression=0.75&red=0.5&improvement=1.6");
  EXPECT_EQ(j["base"], "bmg-2.12");
  EXPECT_EQ(j["thresholds"]["regression"], 0.75);
  EXPECT_EQ(j["cases"][1]["verdict"], "unchanged");  // ModelB 0.8 is above 0.75
}

TEST_F(CompareE2E, CompareMarkdownAndCsv) {
  auto md = call("GET", "/api/v1/compare?target=bmg-2.13&format=md");
  ASSERT_EQ(md.status, 200u) << md.body;
  EXPECT_NE(md.content_type.find("text/markdown"), std::string::npos);
  EXPECT_NE(md.body.find("### Changed cases (8 of 9"), std::string::npos) << md.body;
  auto csv = call("GET", "/api/v1/compare?target=bmg-2.13&format=csv");
  ASSERT_EQ(csv.status, 200u);
  EXPECT_NE(csv.content_type.find("text/csv"), std::string::npos);
  EXPECT_EQ(std::count(csv.body.begin(), csv.body.end(), '\n'), 10);
}

TEST_F(CompareE2E, CompareRejectsABadFormat) {
  EXPECT_EQ(get_json("/api/v1/compare?target=bmg-2.13&format=xml", 400)["error"]["code"], "bad_format");
}

TEST_F(CompareE2E, CompareRejectsABadThreshold) {
  EXPECT_EQ(get_json("/api/v1/compare?target=bmg-2.13&red=x", 400)["error"]["column"], "red");
}

TEST_F(CompareE2E, CompareNeedsATarget) {
  EXPECT_EQ(get_json("/api/v1/compare?base=bmg-2.12", 400)["error"]["code"], "missing_parameter");
}

TEST_F(CompareE2E, CompareOfAnUnknownRunIs404) {
  EXPECT_EQ(get_json("/api/v1/compare?base=bmg-2.12&target=nope", 404)["error"]["code"], "no_run");
}

TEST_F(CompareE2E, HistoryOfOneCase) {
  auto j = get_json("/api/v1/cases/huggingface/ModelB/history?platform=BMG&dtype=bfloat16&mode=inference");
  EXPECT_EQ(
      j["method"],
      "noise-scaled Welch t (back 12, fore 12, >= 6 before and >= 3 after, t >= 4.5, >= 2 noise sigmas and >= 1%, "
      "values clipped at 3 sigmas, a step beating a line by >= 2 sigma^2, noise >= 0.25%)");
  ASSERT_EQ(j["series"].size(), 1u);
  const auto& points = j["series"][0]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0]["run"], "bmg-2.12");
  EXPECT_DOUBLE_EQ(points[1]["speedup"].get<double>(), 0.4);
  EXPECT_TRUE(j["series"][0]["change_points"].empty());  // two points cannot confirm a step
}

// Compile time and memory from upload to report: two CUDA runs whose model compiles 40 s -> 70 s and whose peak-memory
// compression falls 1.5 -> 1.2 at the same latency. Both are regressions, listed in their report sections, seen in the
// compare JSON and in the trends.
TEST_F(CompareE2E, CompileTimeAndMemoryFromUploadToReport) {
  const std::string header =
      "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem\n";
  const std::string path = "huggingface/float16/inference/performance/perf.csv";
  const auto put = [&](const std::string& run, const std::string& created, const std::string& row) {
    auto r = call("POST",
                  "/api/v1/uploads?run=" + run + "&platform=H100&created_at=" + created +
                      "&suite=huggingface&dtype=float16&mode=inference&path=" + path,
                  "text/csv", header + row);
    ASSERT_EQ(r.status, 201u) << r.body;
  };
  put("h100-1", "2026-03-01T00:00:00Z", "cuda,GPT2,8,1.500000,10.0,40.0,1.500000,3.0,2.0\n");
  put("h100-2", "2026-03-02T00:00:00Z", "cuda,GPT2,8,1.500000,10.0,70.0,1.200000,3.0,2.5\n");
  const auto compare = get_json("/api/v1/compare?base=h100-1&target=h100-2");
  ASSERT_EQ(compare["cases"].size(), 1u);
  const auto& c = compare["cases"][0];
  EXPECT_EQ(c["verdict"], "regression") << c;
  std::vector<std::string> changes;
  for (const auto& ch : c["changes"]) changes.push_back(ch["change"]);
  EXPECT_EQ(changes, (std::vector<std::string>{"compile_slower", "memory_worse"}));
  EXPECT_DOUBLE_EQ(compare["aggregates"]["overall"]["target"]["mean_compilation_s"].get<double>(), 70.0);
  EXPECT_DOUBLE_EQ(compare["aggregates"]["overall"]["target"]["geomean_compression_ratio"].get<double>(), 1.2);
  auto r = call("GET", "/api/v1/report.md?base=h100-1&target=h100-2&kind=regressions");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_NE(r.body.find("## Compile-time regressions (compiles slower): 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("## Memory regressions (peak-memory compression ratio down): 1"), std::string::npos) << r.body;
  const auto trends = get_json("/api/v1/trends?platform=h100");
  ASSERT_EQ(trends["groups"].size(), 1u);
  EXPECT_DOUBLE_EQ(trends["groups"][0]["points"][1]["geomean_compression_ratio"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(trends["groups"][0]["points"][0]["mean_compilation_s"].get<double>(), 40.0);
  // The backlog lists both between the platform's two newest runs, with the values compare judged them on; the
  // recomputed backlog (another threshold) the same.
  for (const std::string query : {"", "&threshold=1.2"}) {
    const auto backlog = get_json("/api/v1/backlog?platform=H100" + query);
    const auto& latest = backlog["latest_regressions"];
    ASSERT_TRUE(latest.is_object()) << backlog;
    EXPECT_EQ(latest["base_run"], "h100-1");
    EXPECT_EQ(latest["target_run"], "h100-2");
    ASSERT_EQ(latest["compile_time"].size(), 1u) << latest;
    EXPECT_EQ(latest["compile_time"][0]["model"], "GPT2");
    EXPECT_DOUBLE_EQ(latest["compile_time"][0]["base_compilation_s"].get<double>(), 40.0);
    EXPECT_DOUBLE_EQ(latest["compile_time"][0]["target_compilation_s"].get<double>(), 70.0);
    EXPECT_DOUBLE_EQ(latest["compile_time"][0]["compile_ratio"].get<double>(), c["compile_ratio"].get<double>());
    EXPECT_EQ(latest["compile_time"][0]["issues"], nlohmann::json::array());
    ASSERT_EQ(latest["memory"].size(), 1u) << latest;
    EXPECT_DOUBLE_EQ(latest["memory"][0]["base_compression_ratio"].get<double>(), 1.5);
    EXPECT_DOUBLE_EQ(latest["memory"][0]["target_compression_ratio"].get<double>(), 1.2);
    EXPECT_DOUBLE_EQ(latest["memory"][0]["memory_ratio"].get<double>(), 0.8);
  }
}

// Compile time is a series of its own (ModelA compiled in 40 s, then 50 s), and compression where measured.
TEST_F(CompareE2E, HistoryOfCompileTime) {
  auto j = get_json(
      "/api/v1/cases/huggingface/ModelA/history?platform=BMG&dtype=bfloat16&mode=inference&metric=compilation_s");
  ASSERT_EQ(j["series"].size(), 1u);
  const auto& points = j["series"][0]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_DOUBLE_EQ(points[0]["compilation_s"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(points[1]["compilation_s"].get<double>(), 50.0);
  EXPECT_TRUE(points[0]["compression_ratio"].is_null());  // XPU: not measured
}

TEST_F(CompareE2E, HistoryNeedsAPlatform) {
  EXPECT_EQ(get_json("/api/v1/cases/huggingface/ModelB/history", 400)["error"]["column"], "platform");
}

TEST_F(CompareE2E, HistoryRejectsAnUnknownMetric) {
  EXPECT_EQ(get_json("/api/v1/cases/huggingface/ModelB/history?platform=BMG&metric=x", 400)["error"]["code"],
            "bad_metric");
}

TEST_F(CompareE2E, HistoryOfAnUnknownCaseIs404) {
  EXPECT_EQ(get_json("/api/v1/cases/huggingface/Nope/history?platform=BMG", 404)["error"]["code"], "no_history");
}

TEST_F(CompareE2E, Backlog) {
  auto j = get_json("/api/v1/backlog?platform=BMG");
  EXPECT_EQ(j["runs"], 2);
  EXPECT_EQ(j["open"], 2);
  EXPECT_EQ(j["fixed"], 1);
  ASSERT_EQ(j["cases"].size(), 3u);
  EXPECT_EQ(j["cases"][2]["model"], "tb_a");
  EXPECT_EQ(j["cases"][2]["first_seen"], "bmg-2.12");
  EXPECT_EQ(j["cases"][2]["fixed_in"], "bmg-2.13");
  for (const auto& c : j["cases"]) EXPECT_EQ(c["issues"], nlohmann::json::array()) << c;  // no issue names them
  ASSERT_TRUE(j["latest_regressions"].is_object());
  EXPECT_EQ(j["latest_regressions"]["target_run"], "bmg-2.13");
  // ModelA compiles 40 s -> 50 s: a ratio of 0.8 is not below the default 0.8.
  EXPECT_EQ(j["latest_regressions"]["compile_time"], nlohmann::json::array());
}

TEST_F(CompareE2E, BacklogNeedsAPlatform) {
  EXPECT_EQ(get_json("/api/v1/backlog", 400)["error"]["code"], "missing_parameter");
}

TEST_F(CompareE2E, BacklogOfAnUnknownPlatformIs404) {
  EXPECT_EQ(get_json("/api/v1/backlog?platform=PVC", 404)["error"]["code"], "no_run");
}

TEST_F(CompareE2E, SlowReportOfARun) {
  auto r = call("GET", "/api/v1/runs/bmg-2.13/report.md");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_NE(r.content_type.find("text/markdown"), std::string::npos);
  EXPECT_EQ(r.body.substr(0, r.body.find('\n')),
            "[BMG] PyTorch 2.13 performance cases where inductor is slower than eager (speedup < 1)");
  EXPECT_NE(r.body.find("contain 2 cases"), std::string::npos) << r.body;  // ModelB 0.4, tb_b 0.625
}

TEST_F(CompareE2E, SlowReportOfAnUnknownRunIs404) {
  EXPECT_EQ(call("GET", "/api/v1/runs/nope/report.md").status, 404u);
}

TEST_F(CompareE2E, RegressionReport) {
  auto r = call("GET", "/api/v1/report.md?base=bmg-2.12&target=bmg-2.13&kind=regressions");
  ASSERT_EQ(r.status, 200u) << r.body;
  // ModelB and tb_b got slower on the compiled path; ModelC's eager got faster and its speedup fell 1.5 -> 1.0.
  EXPECT_EQ(r.body.substr(0, r.body.find('\n')), "[BMG] 3 E2E inductor performance regressions: release 2.13 vs 2.12");
  EXPECT_NE(r.body.find("## Inductor-path regressions (compiled got slower): 2"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("## Now slower than eager (speedup was >= 1, is < 1): 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("## Speedup lost while the compiled path held (eager got faster, inductor did not follow): 1"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find("## New failures: 2"), std::string::npos) << r.body;
}

// The compile-time and memory thresholds are query parameters like the others, checked the same way.
TEST_F(CompareE2E, CompileTimeThresholdsComeFromTheQuery) {
  const auto strict = get_json("/api/v1/compare?base=bmg-2.12&target=bmg-2.13&compile_regression=0.95");
  const auto model_a = std::find_if(strict["cases"].begin(), strict["cases"].end(),
                                    [](const json& c) { return c["model"] == "ModelA"; });
  ASSERT_NE(model_a, strict["cases"].end());
  EXPECT_EQ((*model_a)["verdict"], "regression") << *model_a;  // compile 40 s -> 50 s: 0.8 < 0.95
  EXPECT_EQ((*model_a)["changes"][0]["change"], "compile_slower") << *model_a;
  EXPECT_DOUBLE_EQ(strict["thresholds"]["compile_regression"].get<double>(), 0.95);
  const auto by_default = get_json("/api/v1/compare?base=bmg-2.12&target=bmg-2.13");
  for (const auto& c : by_default["cases"]) {
    if (c["model"] == "ModelA") EXPECT_EQ(c["verdict"], "unchanged") << c;  // 0.8 is not below 0.8
  }
  EXPECT_EQ(get_json("/api/v1/compare?target=bmg-2.13&compile_regression=2", 400)["error"]["code"], "bad_thresholds");
  const auto bad = get_json("/api/v1/compare?target=bmg-2.13&memory_regression=x", 400);
  EXPECT_EQ(bad["error"]["code"], "bad_threshold");
  EXPECT_EQ(bad["error"]["column"], "memory_regression");
}

TEST_F(CompareE2E, ReportRejectsAnUnknownKind) {
  EXPECT_EQ(get_json("/api/v1/report.md?target=bmg-2.13&kind=weekly", 400)["error"]["code"], "bad_kind");
}

TEST_F(CompareE2E, CliCompareAndReports) {
  std::string out;
  ASSERT_EQ(cli("compare --base previous --target bmg-2.13 --format csv", out), 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 10);
  ASSERT_EQ(cli("compare --base release-2.12 --target bmg-2.13 --json", out), 0);
  EXPECT_EQ(json::parse(out)["cases"].size(), 9u);
  ASSERT_EQ(cli("report --run bmg-2.12 --kind slow", out), 0);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)");
  ASSERT_EQ(cli("report --base bmg-2.12 --target bmg-2.13 --kind regressions", out), 0);
  EXPECT_EQ(out.substr(0, out.find('\n')), "[BMG] 3 E2E inductor performance regressions: release 2.13 vs 2.12");
  ASSERT_EQ(cli("report --base bmg-2.12 --target bmg-2.13 --kind regressions --compile-regression 0.95", out), 0);
  EXPECT_EQ(out.substr(0, out.find('\n')), "[BMG] 4 E2E inductor performance regressions: release 2.13 vs 2.12");
  EXPECT_NE(out.find("## Compile-time regressions (compiles slower): 1"), std::string::npos) << out;
  EXPECT_EQ(cli("compare --target bmg-2.13 --memory-regression 2", out), 2) << out;  // not below memory_improvement
}

TEST_F(CompareE2E, CliRefusesBadUsage) {
  std::string out;
  EXPECT_EQ(cli("compare --base previous", out), 2);                              // no target
  EXPECT_EQ(cli("compare --target bmg-2.13 --format xml", out), 2);               // bad format
  EXPECT_EQ(cli("report --kind slow", out), 2);                                   // no run
  EXPECT_EQ(cli("compare --base nope --target bmg-2.13", out), 1);                // unknown base
  EXPECT_EQ(cli("report --target bmg-2.13 --kind regressions --red 2", out), 2);  // inconsistent thresholds
}

TEST_F(CompareE2E, ReportOfARunIsItsSlowReport) {
  std::string by_default;
  std::string slow;
  ASSERT_EQ(cli("report --run bmg-2.12", by_default), 0);
  ASSERT_EQ(cli("report --run bmg-2.12 --kind slow", slow), 0);
  EXPECT_EQ(by_default, slow);
  EXPECT_NE(by_default.find("## Representative Cases"), std::string::npos) << by_default;
}

}  // namespace
}  // namespace perftriage
