// The CSV limits through the ingest use case and POST /api/v1/uploads: extra cells dropped with a warning naming the
// file, impossible values flagged `invalid` (GET /results?flag=invalid), the multipart part limit (413), and a
// row of 10 MB of commas that costs nothing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "server/app/app_context.hpp"
#include "tests/support/route_call.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr std::string_view kHeader16 =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";
constexpr const char* kPath = "huggingface/bfloat16/inference/performance/r.csv";

std::string csv_with_impossible_values() {
  return std::string(kHeader16) +
         "xpu,Fine,8,1.20,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,Slow,8,0.50,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,NegSpeedup,8,-1.50,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,NanSpeedup,8,nan,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,NegBatch,-4,0.50,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,NegLatency,8,0.70,-10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,InfLatency,8,0.70,inf,30.0,0,0,0,1,1,0,0,0,0,0\n"
         "xpu,Broken,0,0.0,0.0,0,0,0,0,0,0,0,0,0,0,0\n";
}

class UploadLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-upload-limits-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    settings.unpack.max_parts = 4;
    app_ = std::make_unique<AppContext>(settings);
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  ApiResponse call(const std::string& method, const std::string& target, const std::string& body = {},
                   const std::string& content_type = "text/csv") {
    return testing::call_route(router_, *app_, method, target, body, content_type);
  }
  static json body(const ApiResponse& r) { return json::parse(r.body); }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_ = make_router();
};

TEST_F(UploadLimitsTest, ImpossibleValuesAreInvalidNotPassingNotSlow) {
  auto up =
      call("POST", std::string("/api/v1/uploads?platform=BMG&run=r1&path=") + kPath, csv_with_impossible_values());
  ASSERT_EQ(up.status, 201u) << up.body;
  const auto summary = body(up);
  const auto& f = summary["files"][0];
  EXPECT_EQ(f["rows"], 8);
  EXPECT_EQ(f["invalid"], 5);
  EXPECT_EQ(f["slow"], 1);    // only "Slow": NegBatch / NegLatency / InfLatency have speedups below 1 too
  EXPECT_EQ(f["failed"], 1);  // only "Broken"

  auto invalid = call("GET", "/api/v1/results?run=r1&flag=invalid");
  ASSERT_EQ(invalid.status, 200u) << invalid.body;
  std::set<std::string> models;
  const json invalid_rows = body(invalid)["results"];
  for (const auto& r : invalid_rows) {
    models.insert(r["model"].get<std::string>());
    EXPECT_TRUE(r["speedup"].is_null()) << r;  // no measurement for every query deciding slow / passing
    const auto flags = r["flags"];
    EXPECT_NE(std::find(flags.begin(), flags.end(), "invalid"), flags.end()) << r;
    EXPECT_EQ(std::find(flags.begin(), flags.end(), "slow"), flags.end()) << r;
    EXPECT_EQ(std::find(flags.begin(), flags.end(), "failed"), flags.end()) << r;
  }
  EXPECT_EQ(models, (std::set<std::string>{"NegSpeedup", "NanSpeedup", "NegBatch", "NegLatency", "InfLatency"}));
  const auto all = body(call("GET", "/api/v1/results?run=r1&flag=invalid"))["results"];
  for (const auto& r : all) {
    if (r["model"] == "NegSpeedup") {
      EXPECT_EQ(r["speedup_text"], "-1.50");  // what the file says is kept
    }
    if (r["model"] == "NegBatch") {
      EXPECT_EQ(r["batch_size"], -4);
    }
  }

  auto slow = body(call("GET", "/api/v1/slow?run=r1&format=json"))["cases"];
  ASSERT_EQ(slow.size(), 1u) << slow;
  EXPECT_EQ(slow[0]["model"], "Slow");
  auto runs = body(call("GET", "/api/v1/runs/r1"));
  EXPECT_EQ(runs["counts"]["invalid"], 5) << runs;
  EXPECT_EQ(runs["counts"]["slow"], 1) << runs;
  EXPECT_EQ(call("GET", "/api/v1/results?run=r1&flag=bogus").status, 400u);
}

TEST_F(UploadLimitsTest, DroppedExtraCellsAreAWarningNamingTheFile) {
  std::string csv(kHeader16);
  csv += "xpu,Wide,8,1.2,10.0,30.0,0,0,0,1,1,0,0,0,0,0";
  for (int i = 0; i < 40; ++i) csv += ",extra" + std::to_string(i);
  csv += "\nxpu,Padded,8,1.2,10.0,30.0,0,0,0,1,1,0,0,0,0,0" + std::string(10u << 20, ',') + "\n";
  auto up = call("POST", std::string("/api/v1/uploads?platform=BMG&run=r1&path=") + kPath, csv);
  ASSERT_EQ(up.status, 201u) << up.body.substr(0, 500);
  const auto summary = body(up);
  ASSERT_EQ(summary["warnings"].size(), 1u) << summary;
  const auto& w = summary["warnings"][0];
  EXPECT_EQ(w["file"], kPath);
  EXPECT_EQ(w["code"], "extra_cells_dropped");
  EXPECT_EQ(w["rows"], 1);
  EXPECT_EQ(w["cells"], 24);
  EXPECT_EQ(w["line"], 2);
  EXPECT_NE(w["message"].get<std::string>().find(kPath), std::string::npos);
  EXPECT_EQ(summary["files"][0]["warnings"].size(), 1u);
  EXPECT_EQ(summary["files"][0]["rows"], 2);

  auto rows = call("GET", "/api/v1/results?run=r1");
  ASSERT_EQ(rows.status, 200u);
  EXPECT_LT(rows.body.size(), 16u * 1024) << "the padded row must not turn into megabytes of JSON";
  const json all_rows = body(rows)["results"];
  for (const auto& r : all_rows) {
    if (r["model"] == "Wide") {
      EXPECT_EQ(r["extra"].size(), 16u);
    }
    if (r["model"] == "Padded") {
      EXPECT_TRUE(r["extra"].empty());
    }
  }
}

TEST_F(UploadLimitsTest, OverlongCellIsA400NamingFileLineColumn) {
  std::string csv(kHeader16);
  csv += "xpu,M,8,1.2,10.0,30.0,0,0,0,1,1,0,0,0,0,0\nxpu," + std::string(5000, 'm') + ",8,1.2\n";
  auto up = call("POST", std::string("/api/v1/uploads?platform=BMG&run=r1&path=") + kPath, csv);
  ASSERT_EQ(up.status, 400u) << up.body;
  const auto e = body(up)["error"];
  EXPECT_EQ(e["code"], "cell_too_long");
  EXPECT_EQ(e["file"], kPath);
  EXPECT_EQ(e["line"], 3);
  EXPECT_EQ(e["column"], "name");
}

TEST_F(UploadLimitsTest, MultipartWithMorePartsThanTheLimitIs413) {
  auto multipart = [](int parts) {
    std::string b;
    for (int i = 0; i < parts; ++i)
      b += "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"huggingface/bfloat16/inference/"
           "performance/f" +
           std::to_string(i) + ".csv\"\r\n\r\n" + std::string(kHeader16) + "xpu,M,8,1.2\r\n";
    return b + "--B--\r\n";
  };
  const std::string type = "multipart/form-data; boundary=B";
  auto refused = call("POST", "/api/v1/uploads?platform=BMG&run=r1", multipart(5), type);
  ASSERT_EQ(refused.status, 413u) << refused.body;
  EXPECT_EQ(body(refused)["error"]["code"], "too_many_parts");
  EXPECT_NE(body(refused)["error"]["message"].get<std::string>().find("4"), std::string::npos);
  auto ok = call("POST", "/api/v1/uploads?platform=BMG&run=r1", multipart(4), type);
  ASSERT_EQ(ok.status, 201u) << ok.body;
  EXPECT_EQ(body(ok)["files"].size(), 4u);
}

TEST(IngestFiles, BorrowedAndOwnedBytesGiveTheSameRowsAndDuplicatesStillCount) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s) << s.error().message;
  UploadMeta meta;
  meta.run = "r";
  meta.platform = "BMG";
  const std::string csv = csv_with_impossible_values();
  std::vector<ingest::InputFile> borrowed(1);
  borrowed[0].path = kPath;
  borrowed[0].borrowed = csv;
  auto first = ingest_files(*s, meta, std::move(borrowed));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->files[0].status, FileStatus::stored);
  EXPECT_EQ(first->files[0].rows, 8);
  // the same bytes, owned this time: a duplicate, with the same counts (rows are read again to count them)
  auto again = ingest_files(*s, meta, {{kPath, csv}});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->files[0].status, FileStatus::duplicate);
  EXPECT_EQ(again->files[0].rows, 8);
  EXPECT_EQ(again->files[0].invalid, 5);
  EXPECT_EQ(again->files[0].slow, 1);
  const auto j = to_json(*again);
  EXPECT_TRUE(j["warnings"].is_array());
  EXPECT_EQ(j["files"][0]["invalid"], 5);
}

TEST(IngestFiles, ManyPathsAreCheckedForDuplicatesInLinearTime) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s) << s.error().message;
  UploadMeta meta;
  meta.run = "r";
  meta.platform = "BMG";
  std::vector<ingest::InputFile> files;
  for (int i = 0; i < 3; ++i)
    files.push_back({"huggingface/bfloat16/inference/performance/" + std::to_string(i) + ".csv",
                     std::string(kHeader16) + "xpu,M,8,1.2\n"});
  files.push_back(files[1]);
  auto r = ingest_files(*s, meta, std::move(files));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "duplicate_path");
  EXPECT_EQ(r.error().file, "huggingface/bfloat16/inference/performance/1.csv");
}

}  // namespace
}  // namespace perftriage::server
