// End-to-end: the real binary classifies uploads, attaches traces to cases of the seed BMG 2.12 run, and shows
// their findings in the case detail and the slow list. Each test uses its own case, so they hold whether the
// tests share one server (one process) or each starts its own (ctest).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

using nlohmann::json;
using testing::fixture;
using testing::http_call;
using testing::read_bytes;

constexpr const char* kRun = "/api/v1/runs/bmg-release-2.12";

std::string multipart(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string body;
  for (const auto& [path, bytes] : files) {
    body += "--XyZ123\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + path +
            "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + bytes + "\r\n";
  }
  return body + "--XyZ123--\r\n";
}

std::string case_path(const std::string& suite, const std::string& dtype, const std::string& mode,
                      const std::string& model) {
  return std::string(kRun) + "/cases/" + suite + "/" + dtype + "/" + mode + "/" + model;
}

class ArtifactsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-e2e-artifacts-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    server_ = new testing::ServerProcess(PERFTRIAGE_BINARY,
                                         {"--db", perftriage::testing_support::e2e_db((dir_ / "db.sqlite").string())});
    std::vector<std::pair<std::string, std::string>> parts;
    for (const auto& f : testing::read_tree(fixture("seed_bmg_2.12"))) parts.emplace_back(f.path, f.bytes);
    auto r = call("POST", "/api/v1/uploads?run=bmg-release-2.12&platform=BMG", "multipart/form-data; boundary=XyZ123",
                  multipart(parts));
    ASSERT_EQ(r.status, 201u) << r.body;
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->stop(), 0);
    delete server_;
    std::filesystem::remove_all(dir_);
  }
  static testing::HttpReply call(const std::string& method, const std::string& target, const std::string& type = {},
                                 const std::string& body = {}) {
    return http_call(server_->port(), method, target, type, body);
  }
  static json body_json(const testing::HttpReply& r) { return json::parse(r.body); }
  static testing::HttpReply attach(const std::string& case_target, const std::string& fixture_name,
                                   const std::string& query = {}) {
    return call("POST", case_target + "/artifacts?name=" + fixture_name + query, "application/octet-stream",
                read_bytes(fixture("trace/" + fixture_name)));
  }

  static inline std::filesystem::path dir_;
  static inline testing::ServerProcess* server_ = nullptr;
};

// What `perftriage classify --json FILE` prints.
json cli_classify(const std::string& path) {
  const std::string cmd = std::string(PERFTRIAGE_BINARY) + " classify --json '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  return json::parse(out);
}

TEST_F(ArtifactsE2E, ClassifyAnswersWhatTheCliPrints) {
  const std::string path = fixture("trace/xpu_math_fallback.json");
  auto r = call("POST", "/api/v1/classify?name=" + path, "application/json", read_bytes(path));
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body_json(r);
  EXPECT_EQ(j, cli_classify(path));
  EXPECT_EQ(j["findings"][0]["verdict"], "math_fallback");
}

TEST_F(ArtifactsE2E, ClassifyAGzipFlashTraceAsAMultipartFile) {
  auto r = call("POST", "/api/v1/classify", "multipart/form-data; boundary=XyZ123",
                multipart({{"cuda_flash_sdpa.json.gz", read_bytes(fixture("trace/cuda_flash_sdpa.json.gz"))}}));
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body_json(r);
  EXPECT_EQ(j["file"], "cuda_flash_sdpa.json.gz");
  EXPECT_EQ(j["findings"][0]["classifier"], "attention");
  EXPECT_EQ(j["findings"][0]["verdict"], "fused");
}

TEST_F(ArtifactsE2E, ClassifyRefusesANonTraceWith422) {
  auto r = call("POST", "/api/v1/classify?name=memory_timeline.json", "application/json",
                read_bytes(fixture("trace/memory_timeline.json")));
  ASSERT_EQ(r.status, 422u) << r.body;
  EXPECT_EQ(body_json(r)["error"]["file"], "memory_timeline.json");
}

TEST_F(ArtifactsE2E, ClassifyEmptyBodyIs400) {
  auto r = call("POST", "/api/v1/classify", "application/json", "");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body_json(r)["error"]["code"], "empty_body");
}

TEST_F(ArtifactsE2E, AttachedMathFallbackTraceExplainsTheSlowCase) {
  const auto electra = case_path("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering");
  auto before = body_json(call("GET", electra));
  EXPECT_EQ(before["explanation"]["verdict"], "unexplained");  // graph_breaks 0 in the row, nothing attached

  auto r = attach(electra, "xpu_math_fallback.json", "&role=compiled");
  ASSERT_EQ(r.status, 201u) << r.body;
  auto stored = body_json(r);
  EXPECT_EQ(stored["findings"][0]["verdict"], "math_fallback");
  const std::string id = std::to_string(stored["id"].get<std::int64_t>());

  auto list = body_json(call("GET", electra + "/artifacts"));
  ASSERT_EQ(list["artifacts"].size(), 1u);
  EXPECT_EQ(list["artifacts"][0]["id"], stored["id"]);
  EXPECT_EQ(list["artifacts"][0]["role"], "compiled");
  EXPECT_EQ(list["artifacts"][0]["findings"][0]["verdict"], "math_fallback");

  auto meta = call("GET", "/api/v1/artifacts/" + id);
  ASSERT_EQ(meta.status, 200u);
  EXPECT_EQ(body_json(meta)["sha256"], stored["sha256"]);
  auto raw = call("GET", "/api/v1/artifacts/" + id + "/raw");
  ASSERT_EQ(raw.status, 200u);
  EXPECT_EQ(raw.body, read_bytes(fixture("trace/xpu_math_fallback.json")));

  auto detail = body_json(call("GET", electra));
  EXPECT_EQ(detail["results"][0]["findings"][0]["verdict"], "no");
  EXPECT_EQ(detail["explanation"]["verdict"], "explained");
  EXPECT_EQ(detail["explanation"]["text"], "attention: math_fallback");

  auto slow = body_json(call("GET", "/api/v1/slow?run=bmg-release-2.12"));
  bool seen = false;
  for (const auto& c : slow["cases"]) {
    if (c["model"] == "ElectraForQuestionAnswering" && c["dtype"] == "bfloat16") {
      seen = true;
      ASSERT_FALSE(c["findings"].empty());
      EXPECT_EQ(c["findings"][0]["classifier"], "attention");
      EXPECT_EQ(c["findings"][0]["verdict"], "math_fallback");
      EXPECT_EQ(std::to_string(c["findings"][0]["artifact_id"].get<std::int64_t>()), id);
    }
  }
  EXPECT_TRUE(seen);
  auto md = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=md&findings=1");
  EXPECT_NE(
      md.body.find("| ElectraForQuestionAnswering | 128 | 0.662224 | "
                   "huggingface/bfloat16/inference/performance/"
                   "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv | attention: math_fallback"),
      std::string::npos)
      << md.body;
}

TEST_F(ArtifactsE2E, AttachedFlashGzipTraceIsKeptAsUploadedAndExplainsNothing) {
  const auto plbart = case_path("huggingface", "bfloat16", "inference", "PLBartForConditionalGeneration");
  auto r = attach(plbart, "cuda_flash_sdpa.json.gz");
  ASSERT_EQ(r.status, 201u) << r.body;
  auto stored = body_json(r);
  EXPECT_EQ(stored["compression"], "gzip");
  EXPECT_EQ(stored["findings"][0]["verdict"], "fused");
  auto raw = call("GET", "/api/v1/artifacts/" + std::to_string(stored["id"].get<std::int64_t>()) + "/raw");
  ASSERT_EQ(raw.status, 200u);
  EXPECT_EQ(raw.content_type, "application/gzip");
  EXPECT_EQ(raw.body, read_bytes(fixture("trace/cuda_flash_sdpa.json.gz")));
  auto detail = body_json(call("GET", plbart));
  EXPECT_NE(detail["explanation"]["verdict"], "explained") << detail["explanation"].dump();
}

TEST_F(ArtifactsE2E, SameBytesAgainIs200Duplicate) {
  const auto bart = case_path("huggingface", "bfloat16", "inference", "BartForConditionalGeneration");
  auto first = attach(bart, "xpu_fused.json");
  ASSERT_EQ(first.status, 201u) << first.body;
  auto again = attach(bart, "xpu_fused.json");
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(body_json(again)["status"], "duplicate");
  EXPECT_EQ(body_json(again)["id"], body_json(first)["id"]);
  EXPECT_EQ(body_json(call("GET", bart + "/artifacts"))["artifacts"].size(), 1u);
}

TEST_F(ArtifactsE2E, RefusedFileIs422AndNothingIsStored) {
  const auto mbart = case_path("huggingface", "bfloat16", "inference", "MBartForConditionalGeneration");
  auto r = attach(mbart, "execution_trace.json");
  ASSERT_EQ(r.status, 422u) << r.body;
  auto list = call("GET", mbart + "/artifacts");
  ASSERT_EQ(list.status, 200u);
  EXPECT_TRUE(body_json(list)["artifacts"].empty());
}

TEST_F(ArtifactsE2E, UnknownCaseIs404) {
  auto r = attach(case_path("huggingface", "bfloat16", "inference", "NoSuchModel"), "xpu_fused.json");
  ASSERT_EQ(r.status, 404u) << r.body;
  EXPECT_NE(body_json(r)["error"]["message"].get<std::string>().find("NoSuchModel"), std::string::npos);
  auto other_run = call("POST", "/api/v1/runs/no-such-run/cases/torchbench/bfloat16/inference/maml/artifacts",
                        "application/json", read_bytes(fixture("trace/xpu_fused.json")));
  ASSERT_EQ(other_run.status, 404u);
  EXPECT_EQ(body_json(other_run)["error"]["code"], "no_run");
}

TEST_F(ArtifactsE2E, UnknownArtifactIs404) {
  EXPECT_EQ(call("GET", "/api/v1/artifacts/987654").status, 404u);
  EXPECT_EQ(call("GET", "/api/v1/artifacts/987654/raw").status, 404u);
}

}  // namespace
}  // namespace perftriage
