// End-to-end: the real binary, a real socket, every upload shape and the read-back endpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/archive_writer.hpp"
#include "tests/support/files.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

using nlohmann::json;
using testing::http_call;

constexpr const char* kHeader16 =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";

std::string multipart(const std::string& boundary, const std::vector<std::pair<std::string, std::string>>& files,
                      const std::string& meta) {
  std::string body;
  if (!meta.empty()) {
    body += "--" + boundary +
            "\r\nContent-Disposition: form-data; name=\"meta\"\r\n"
            "Content-Type: application/json\r\n\r\n" +
            meta + "\r\n";
  }
  for (const auto& [path, bytes] : files) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + path +
            "\"\r\nContent-Type: text/csv\r\n\r\n" + bytes + "\r\n";
  }
  return body + "--" + boundary + "--\r\n";
}

class UploadE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-e2e-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    server_ = new testing::ServerProcess(PERFTRIAGE_BINARY,
                                         {"--db", perftriage::testing_support::e2e_db((dir_ / "db.sqlite").string())});
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->stop(), 0);  // SIGTERM is a clean shutdown
    delete server_;
    std::filesystem::remove_all(dir_);
  }
  static testing::HttpReply call(const std::string& method, const std::string& target, const std::string& type = {},
                                 const std::string& body = {}) {
    return http_call(server_->port(), method, target, type, body);
  }
  static json body_json(const testing::HttpReply& r) { return json::parse(r.body); }

  static inline std::filesystem::path dir_;
  static inline testing::ServerProcess* server_ = nullptr;
};

TEST_F(UploadE2E, HealthzAnswers) {
  auto r = call("GET", "/healthz");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(body_json(r)["status"], "ok");
}

TEST_F(UploadE2E, SingleCsvWithAxesInTheQuery) {
  std::string csv = std::string(kHeader16) +
                    "xpu,ModelA,8,0.750000,10.0,1,0,0,0,1,1,0,0,0,0,0\n"
                    "xpu,ModelB,8,1.500000,10.0,1,0,0,0,1,1,0,0,0,0,0\n";
  auto r = call("POST", "/api/v1/uploads?run=single&platform=BMG&suite=huggingface&dtype=bfloat16&mode=inference",
                "text/csv", csv);
  ASSERT_EQ(r.status, 201u) << r.body;
  auto j = body_json(r);
  EXPECT_EQ(j["run"], "single");
  ASSERT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["files"][0]["rows"], 2);
  EXPECT_EQ(j["files"][0]["slow"], 1);
  EXPECT_EQ(j["files"][0]["kind"], "performance");
  EXPECT_EQ(j["files"][0]["status"], "stored");

  auto slow = call("GET", "/api/v1/slow?run=single");
  ASSERT_EQ(slow.status, 200u);
  auto cases = body_json(slow)["cases"];
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0]["model"], "ModelA");
  EXPECT_DOUBLE_EQ(cases[0]["speedup"].get<double>(), 0.75);

  // The same bytes again: nothing added.
  auto dup = call("POST", "/api/v1/uploads?run=single&platform=BMG&suite=huggingface&dtype=bfloat16&mode=inference",
                  "text/csv", csv);
  ASSERT_EQ(dup.status, 200u) << dup.body;
  EXPECT_EQ(body_json(dup)["files"][0]["status"], "duplicate");
  // The same bytes under other axes are other rows: refused, never acknowledged as a duplicate of the first.
  const std::string timm = "/api/v1/uploads?run=single&platform=BMG&suite=timm_models&dtype=float32&mode=training";
  auto other_axes = call("POST", timm, "text/csv", csv);
  ASSERT_EQ(other_axes.status, 409u) << other_axes.body;
  EXPECT_EQ(body_json(other_axes)["error"]["code"], "file_axes");
  EXPECT_NE(body_json(other_axes)["error"]["message"].get<std::string>().find("suite=huggingface"), std::string::npos);

  // Different bytes for the same path: 409, then replace=true supersedes.
  std::string changed = csv + "xpu,ModelC,8,0.5,10.0,1,0,0,0,1,1,0,0,0,0,0\n";
  const std::string target = "/api/v1/uploads?run=single&platform=BMG&suite=huggingface&dtype=bfloat16&mode=inference";
  auto conflict = call("POST", target, "text/csv", changed);
  ASSERT_EQ(conflict.status, 409u) << conflict.body;
  EXPECT_EQ(body_json(conflict)["error"]["code"], "file_exists");
  auto replaced = call("POST", target + "&replace=true", "text/csv", changed);
  ASSERT_EQ(replaced.status, 201u) << replaced.body;
  EXPECT_EQ(body_json(replaced)["files"][0]["status"], "replaced");
  auto run = body_json(call("GET", "/api/v1/runs/single"));
  EXPECT_EQ(run["counts"]["rows"], 3);
  EXPECT_EQ(run["counts"]["slow"], 2);
  // replace=true stores the same bytes under the new axes: what is acknowledged is what is stored.
  auto moved = call("POST", timm + "&replace=true", "text/csv", changed);
  ASSERT_EQ(moved.status, 201u) << moved.body;
  EXPECT_EQ(body_json(moved)["files"][0]["status"], "replaced");
  auto moved_cases = body_json(call("GET", "/api/v1/slow?run=single"))["cases"];
  ASSERT_EQ(moved_cases.size(), 2u);
  for (const auto& c : moved_cases) EXPECT_EQ(c["suite"], "timm_models") << c.dump();
}

TEST_F(UploadE2E, MultipartBatchWithMetaPart) {
  auto files = testing::read_tree(testing::fixture("seed_bmg_2.12"));
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& f : files) parts.emplace_back(f.path, f.bytes);
  const std::string meta =
      R"({"run":"bmg-release-2.12","platform":"BMG","torch_version":"2.12.0+xpu","tags":["release-2.12"],)"
      R"("environment":{"os":"Ubuntu 24.04 LTS","libze-dev":"1.27.0"}})";
  auto r = call("POST", "/api/v1/uploads", "multipart/form-data; boundary=XyZ123", multipart("XyZ123", parts, meta));
  ASSERT_EQ(r.status, 201u) << r.body;
  auto j = body_json(r);
  EXPECT_EQ(j["run"], "bmg-release-2.12");
  ASSERT_EQ(j["files"].size(), 5u);

  auto run = call("GET", "/api/v1/runs/bmg-release-2.12");
  ASSERT_EQ(run.status, 200u);
  auto rj = body_json(run);
  EXPECT_EQ(rj["platform"], "BMG");
  EXPECT_EQ(rj["torch_version"], "2.12.0+xpu");
  EXPECT_EQ(rj["environment"]["libze-dev"], "1.27.0");
  EXPECT_EQ(rj["tags"][0], "release-2.12");
  EXPECT_EQ(rj["counts"]["slow"], 11);
  EXPECT_EQ(rj["counts"]["failed"], 5);
  EXPECT_EQ(rj["files"].size(), 5u);

  auto md = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=md");
  ASSERT_EQ(md.status, 200u);
  EXPECT_NE(md.body.find("| huggingface | bfloat16 | inference | ElectraForQuestionAnswering | 128 | 0.662224 | "
                         "huggingface/bfloat16/inference/performance/"
                         "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |"),
            std::string::npos)
      << md.body;

  auto slow = body_json(call("GET", "/api/v1/results?run=bmg-release-2.12&flag=slow&threshold=0.7"));
  EXPECT_EQ(slow["count"], 4);  // 0.662224, 0.646220, 0.671808, 0.664822
  auto failed = body_json(call("GET", "/api/v1/results?run=bmg-release-2.12&flag=failed&suite=torchbench"));
  ASSERT_EQ(failed["count"], 1);
  EXPECT_EQ(failed["results"][0]["model"], "squeezenet1_1");
  auto one = body_json(call("GET", "/api/v1/results?run=bmg-release-2.12&model=maml"));
  ASSERT_EQ(one["count"], 1);
  EXPECT_EQ(one["results"][0]["compression_ratio"], nullptr);  // XPU memory: not measured
  EXPECT_NEAR(one["results"][0]["eager_latency_ms"].get<double>(),
              one["results"][0]["speedup"].get<double>() * one["results"][0]["abs_latency_ms"].get<double>(), 1e-9);
}

TEST_F(UploadE2E, ZipAndTarGzArchives) {
  auto files = testing::read_tree(testing::fixture("seed_bmg_2.12"));
  auto zip = testing::make_archive(files, testing::ArchiveFormat::zip);
  auto r = call("POST", "/api/v1/uploads?run=zip-run&platform=PVC", "application/zip", zip);
  ASSERT_EQ(r.status, 201u) << r.body;
  EXPECT_EQ(body_json(r)["files"].size(), 5u);

  auto tgz = testing::make_archive(files, testing::ArchiveFormat::tar_gz);
  auto t = call("POST", "/api/v1/uploads?run=tgz-run&platform=A100", "application/gzip", tgz);
  ASSERT_EQ(t.status, 201u) << t.body;
  EXPECT_EQ(body_json(t)["files"].size(), 5u);
  EXPECT_EQ(body_json(call("GET", "/api/v1/runs/tgz-run"))["counts"]["slow"], 11);

  auto runs = body_json(call("GET", "/api/v1/runs?platform=PVC"));
  ASSERT_EQ(runs["runs"].size(), 1u);
  EXPECT_EQ(runs["runs"][0]["key"], "zip-run");
}

TEST_F(UploadE2E, MalformedInputIsRefusedWithItsLocationAndStoresNothing) {
  const std::string target = "/api/v1/uploads?run=bad-run&platform=BMG&suite=torchbench&dtype=float32&mode=training";
  std::string bad = std::string(kHeader16) +
                    "xpu,fine,8,1.2,10,1,0,0,0,1,1,0,0,0,0,0\n"
                    "xpu,broken,8,1.2,ten,1,0,0,0,1,1,0,0,0,0,0\n";
  auto r = call("POST", target, "text/csv", bad);
  ASSERT_EQ(r.status, 400u) << r.body;
  auto e = body_json(r)["error"];
  EXPECT_EQ(e["code"], "bad_number");
  EXPECT_EQ(e["line"], 3);
  EXPECT_EQ(e["column"], "abs_latency");
  EXPECT_EQ(e["file"], "upload.csv");
  EXPECT_EQ(call("GET", "/api/v1/runs/bad-run").status, 404u);

  auto empty = call("POST", target, "text/csv", "");
  EXPECT_EQ(empty.status, 400u);
  EXPECT_EQ(body_json(empty)["error"]["code"], "empty_body");

  auto wrong_type = call("POST", target, "image/png", "xxxx");
  EXPECT_EQ(wrong_type.status, 415u);
  EXPECT_EQ(body_json(wrong_type)["error"]["code"], "unsupported_content_type");

  auto no_header = call("POST", target, "text/csv", "just,some,words\n1,2,3\n");
  EXPECT_EQ(no_header.status, 400u);
  EXPECT_EQ(body_json(no_header)["error"]["code"], "no_header");

  auto no_axes = call("POST", "/api/v1/uploads?run=bad-run&platform=BMG", "text/csv",
                      std::string(kHeader16) + "xpu,m,8,1.2,10,1,0,0,0,1,1,0,0,0,0,0\n");
  EXPECT_EQ(no_axes.status, 400u);
  EXPECT_EQ(body_json(no_axes)["error"]["code"], "unknown_axes");

  auto no_csv = call("POST", "/api/v1/uploads?run=bad-run&platform=BMG", "application/zip",
                     testing::make_archive({{"notes.txt", "hello"}}, testing::ArchiveFormat::zip));
  EXPECT_EQ(no_csv.status, 400u);
  EXPECT_EQ(body_json(no_csv)["error"]["code"], "no_csv_in_archive");

  // A batch where the second file is bad: the first is not kept either.
  auto batch = multipart("B0undary",
                         {{"huggingface/float32/inference/performance/inductor-results-huggingface-float32-inference-"
                           "xpu-performance.csv",
                           std::string(kHeader16) + "xpu,ok,8,1.2,10,1,0,0,0,1,1,0,0,0,0,0\n"},
                          {"huggingface/float32/training/performance/inductor-results-huggingface-float32-training-"
                           "xpu-performance.csv",
                           std::string(kHeader16) + "xpu,bad,eight,1.2,10,1,0,0,0,1,1,0,0,0,0,0\n"}},
                         R"({"run":"bad-run","platform":"BMG"})");
  auto b = call("POST", "/api/v1/uploads", "multipart/form-data; boundary=B0undary", batch);
  ASSERT_EQ(b.status, 400u) << b.body;
  EXPECT_EQ(body_json(b)["error"]["column"], "batch_size");
  EXPECT_NE(body_json(b)["error"]["file"].get<std::string>().find("training"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/runs/bad-run").status, 404u);
}

TEST_F(UploadE2E, UnknownRoutesAndBadQueries) {
  EXPECT_EQ(call("GET", "/api/v1/nothing").status, 404u);
  EXPECT_EQ(call("DELETE", "/api/v1/runs").status, 405u);
  EXPECT_EQ(call("GET", "/api/v1/slow?threshold=abc").status, 400u);
  EXPECT_EQ(call("GET", "/api/v1/results?flag=bogus").status, 400u);
  EXPECT_EQ(call("GET", "/api/v1/slow?run=no-such-run").status, 404u);
}

// A misspelled query parameter is refused by name (it used to be ignored: the file was stored without its platform's
// spelling mistake noticed), and nothing is stored.
TEST_F(UploadE2E, UnknownQueryParameterIsRefusedByName) {
  auto r = call("POST", "/api/v1/uploads?run=typo-run&platfrom=BMG&suite=torchbench&dtype=float32&mode=training",
                "text/csv", std::string(kHeader16) + "xpu,m,8,1.2,10,1,0,0,0,1,1,0,0,0,0,0\n");
  ASSERT_EQ(r.status, 400u) << r.body;
  auto e = body_json(r)["error"];
  EXPECT_EQ(e["code"], "unknown_parameter");
  EXPECT_EQ(e["column"], "platfrom");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean platform?"), std::string::npos) << e["message"];
  EXPECT_EQ(call("GET", "/api/v1/runs/typo-run").status, 404u);
}

// The dashboard's footer links to /api/v1: an index of the routes, not a 404.
TEST_F(UploadE2E, ApiIndexListsTheRoutes) {
  auto r = call("GET", "/api/v1");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto index = body_json(r);
  EXPECT_EQ(index["name"], "perftriage");
  EXPECT_FALSE(index["version"].get<std::string>().empty());
  EXPECT_EQ(index["openapi"], "/api/v1/openapi.json");
  bool uploads = false;
  for (const auto& route : index["routes"]) {
    uploads =
        uploads || (route["method"] == "POST" && route["pattern"] == "/api/v1/uploads" && route["scope"] == "upload");
  }
  EXPECT_TRUE(uploads) << index.dump();
}

}  // namespace
}  // namespace perftriage
