// The classify, artifact, case and slow routes through make_router().dispatch on a temporary database file,
// with the seed BMG 2.12 run ingested.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "schema/store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/gzip_helper.hpp"
#include "tests/support/files.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
using testing::fixture;
using testing::read_bytes;

constexpr const char* kBert =
    "/api/v1/runs/bmg-release-2.12/cases/huggingface/bfloat16/inference/BertForQuestionAnswering";

std::string multipart(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string body;
  for (const auto& [name, bytes] : files) {
    body += "--B0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name +
            "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + bytes + "\r\n";
  }
  return body + "--B0undary--\r\n";
}

class ArtifactRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-artifacts-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    {
      auto store = schema::Store::open(settings.db_path);
      ASSERT_TRUE(store) << store.error().message;
      UploadMeta meta;
      meta.run = "bmg-release-2.12";
      meta.platform = "BMG";
      auto summary = ingest_files(*store, meta, testing::read_tree(fixture("seed_bmg_2.12")));
      ASSERT_TRUE(summary) << summary.error().message;
    }
    app_ = std::make_unique<AppContext>(settings);
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }

  ApiResponse call(const std::string& method, const std::string& target, const std::string& body = {},
                   const std::string& content_type = "application/octet-stream") {
    return testing::call_route(router_, *app_, method, target, body, content_type);
  }
  static json body(const ApiResponse& r) { return json::parse(r.body); }
  std::int64_t artifact_count() {
    auto store = app_->store();
    EXPECT_TRUE(store);
    auto st = schema::Statement::prepare((*store)->db(), "SELECT count(*) FROM artifacts");
    EXPECT_TRUE(st && *st->step());
    return st->int64(0);
  }
  ApiResponse attach(const std::string& fixture_name, const std::string& query = {}) {
    return call("POST", std::string(kBert) + "/artifacts?name=" + fixture_name + query,
                read_bytes(fixture("trace/" + fixture_name)));
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_ = make_router();
};

// --- POST /api/v1/classify ---

TEST_F(ArtifactRoutesTest, ClassifyAnswersTheClassifyJson) {
  auto r = call("POST", "/api/v1/classify?name=xpu_math_fallback.json",
                read_bytes(fixture("trace/xpu_math_fallback.json")), "application/json");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body(r);
  EXPECT_EQ(j["file"], "xpu_math_fallback.json");
  EXPECT_TRUE(j["census"].contains("device_kernels"));
  ASSERT_TRUE(j["findings"].is_array());
  EXPECT_EQ(j["findings"][0]["classifier"], "attention");
  EXPECT_EQ(j["findings"][0]["verdict"], "math_fallback");
  EXPECT_EQ(j["summary"]["verdict"], "explained");
  EXPECT_EQ(artifact_count(), 0);  // classify stores nothing
}

TEST_F(ArtifactRoutesTest, ClassifyTakesOneMultipartFilePartAndItsFilename) {
  auto r = call("POST", "/api/v1/classify",
                multipart({{"cuda_flash_sdpa.json.gz", read_bytes(fixture("trace/cuda_flash_sdpa.json.gz"))}}),
                "multipart/form-data; boundary=B0undary");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body(r);
  EXPECT_EQ(j["file"], "cuda_flash_sdpa.json.gz");
  EXPECT_EQ(j["compressed"], true);
  EXPECT_EQ(j["findings"][0]["verdict"], "fused");
}

TEST_F(ArtifactRoutesTest, ClassifyOfACompileLog) {
  auto r = call("POST", "/api/v1/classify?name=log.txt", read_bytes(fixture("trace/torch_logs_item_recompile.log")),
                "text/plain");
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body(r);
  EXPECT_EQ(j["findings"][0]["classifier"], "graph_breaks");
  EXPECT_EQ(j["findings"][0]["verdict"], "yes");
}

TEST_F(ArtifactRoutesTest, ClassifyEmptyBodyIs400) {
  auto r = call("POST", "/api/v1/classify", "");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "empty_body");
}

TEST_F(ArtifactRoutesTest, ClassifyRefusedInputIs422WithTheStandardErrorBody) {
  auto r = call("POST", "/api/v1/classify?name=et.json", read_bytes(fixture("trace/execution_trace.json")));
  ASSERT_EQ(r.status, 422u) << r.body;
  auto e = body(r)["error"];
  EXPECT_FALSE(e["code"].get<std::string>().empty());
  EXPECT_FALSE(e["message"].get<std::string>().empty());
  EXPECT_EQ(e["file"], "et.json");
}

TEST_F(ArtifactRoutesTest, ClassifyTruncatedGzipIs422) {
  auto r = call("POST", "/api/v1/classify", read_bytes(fixture("trace/truncated.json.gz")), "application/gzip");
  EXPECT_EQ(r.status, 422u) << r.body;
}

TEST_F(ArtifactRoutesTest, ClassifyGzipBombIs413) {
  const std::string bomb = testing::gzip_of("[" + std::string(32u << 20, ' ') + "]");  // ~1000x
  auto r = call("POST", "/api/v1/classify?name=bomb.json.gz", bomb, "application/gzip");
  ASSERT_EQ(r.status, 413u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "gzip_bomb");
}

TEST_F(ArtifactRoutesTest, ClassifyMultipartWithTwoFilesIs400) {
  auto r = call("POST", "/api/v1/classify", multipart({{"a.json", "{}"}, {"b.json", "{}"}}),
                "multipart/form-data; boundary=B0undary");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "one_file_part");
}

TEST_F(ArtifactRoutesTest, ClassifyMultipartWithAnEmptyFileIs400) {
  auto r = call("POST", "/api/v1/classify", multipart({{"a.json", ""}}), "multipart/form-data; boundary=B0undary");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "empty_body");
}

TEST_F(ArtifactRoutesTest, ClassifyBadMultipartIs400) {
  auto r = call("POST", "/api/v1/classify", "not a multipart body", "multipart/form-data; boundary=B0undary");
  EXPECT_EQ(r.status, 400u) << r.body;
}

TEST_F(ArtifactRoutesTest, ClassifyNameWithAControlCharacterIs400) {
  auto r = call("POST", "/api/v1/classify?name=a%0Ab", "{}");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "bad_name");
}

// --- POST .../artifacts ---

TEST_F(ArtifactRoutesTest, AttachStoresTheFileAndItsFindings) {
  auto r = attach("xpu_math_fallback.json", "&role=compiled");
  ASSERT_EQ(r.status, 201u) << r.body;
  auto j = body(r);
  EXPECT_GT(j["id"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["status"], "stored");
  EXPECT_EQ(j["name"], "xpu_math_fallback.json");
  EXPECT_EQ(j["role"], "compiled");
  EXPECT_EQ(j["model"], "BertForQuestionAnswering");
  EXPECT_EQ(j["compression"], "deflate");
  EXPECT_EQ(j["size"], std::filesystem::file_size(fixture("trace/xpu_math_fallback.json")));
  EXPECT_LT(j["stored_size"].get<std::int64_t>(), j["size"].get<std::int64_t>());
  EXPECT_EQ(j["sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(j["kind"].get<std::string>().empty());
  EXPECT_TRUE(j["census"].contains("device_kernels"));
  EXPECT_EQ(j["findings"][0]["verdict"], "math_fallback");
  EXPECT_EQ(j["summary"]["verdict"], "explained");
  EXPECT_EQ(artifact_count(), 1);
}

TEST_F(ArtifactRoutesTest, AttachKeepsAGzipUploadAsItIs) {
  auto r = attach("cuda_flash_sdpa.json.gz");
  ASSERT_EQ(r.status, 201u) << r.body;
  auto j = body(r);
  EXPECT_EQ(j["compression"], "gzip");
  EXPECT_EQ(j["stored_size"], j["size"]);
  auto raw = call("GET", "/api/v1/artifacts/" + std::to_string(j["id"].get<std::int64_t>()) + "/raw");
  ASSERT_EQ(raw.status, 200u);
  EXPECT_EQ(raw.content_type, "application/gzip");
  EXPECT_EQ(raw.body, read_bytes(fixture("trace/cuda_flash_sdpa.json.gz")));
}

TEST_F(ArtifactRoutesTest, AttachSameBytesAgainIs200Duplicate) {
  auto first = attach("xpu_math_fallback.json");
  ASSERT_EQ(first.status, 201u) << first.body;
  auto again = attach("xpu_math_fallback.json", "&role=other");
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(body(again)["status"], "duplicate");
  EXPECT_EQ(body(again)["id"], body(first)["id"]);
  EXPECT_EQ(artifact_count(), 1);
}

TEST_F(ArtifactRoutesTest, AttachRefusedFileIs422AndStoresNothing) {
  auto r = attach("memory_timeline.json");
  ASSERT_EQ(r.status, 422u) << r.body;
  EXPECT_EQ(body(r)["error"]["file"], "memory_timeline.json");
  EXPECT_EQ(artifact_count(), 0);
}

TEST_F(ArtifactRoutesTest, AttachGzipBombIs413AndStoresNothing) {
  const std::string bomb = testing::gzip_of("[" + std::string(32u << 20, ' ') + "]");
  auto r = call("POST", std::string(kBert) + "/artifacts?name=bomb.json.gz", bomb, "application/gzip");
  ASSERT_EQ(r.status, 413u) << r.body;
  EXPECT_EQ(artifact_count(), 0);
}

TEST_F(ArtifactRoutesTest, AttachToAnUnknownRunIs404) {
  auto r = call("POST", "/api/v1/runs/nope/cases/huggingface/bfloat16/inference/BertForQuestionAnswering/artifacts",
                read_bytes(fixture("trace/xpu_math_fallback.json")));
  ASSERT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "no_run");
  EXPECT_EQ(artifact_count(), 0);
}

TEST_F(ArtifactRoutesTest, AttachToAnUnknownModelIs404NamingIt) {
  auto r = call("POST", "/api/v1/runs/bmg-release-2.12/cases/huggingface/bfloat16/inference/NoSuchModel/artifacts",
                read_bytes(fixture("trace/xpu_math_fallback.json")));
  ASSERT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "no_model");
  EXPECT_NE(body(r)["error"]["message"].get<std::string>().find("NoSuchModel"), std::string::npos);
}

TEST_F(ArtifactRoutesTest, AttachToAModelWithoutThatCaseIs404NamingTheCase) {
  // BertForQuestionAnswering has huggingface rows only
  auto r = call("POST",
                "/api/v1/runs/bmg-release-2.12/cases/torchbench/bfloat16/inference/BertForQuestionAnswering/artifacts",
                read_bytes(fixture("trace/xpu_math_fallback.json")));
  ASSERT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "no_case");
  EXPECT_NE(
      body(r)["error"]["message"].get<std::string>().find("torchbench/bfloat16/inference/BertForQuestionAnswering"),
      std::string::npos);
}

TEST_F(ArtifactRoutesTest, AttachEmptyBodyIs400) {
  auto r = call("POST", std::string(kBert) + "/artifacts", "");
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "empty_body");
}

TEST_F(ArtifactRoutesTest, AttachWithABadRoleIs400) {
  auto r = attach("xpu_math_fallback.json", "&role=" + std::string(65, 'r'));
  ASSERT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "bad_role");
  EXPECT_EQ(artifact_count(), 0);
}

TEST_F(ArtifactRoutesTest, AttachAsMultipartUsesThePartsFilename) {
  auto r = call("POST", std::string(kBert) + "/artifacts",
                multipart({{"compiled.json", read_bytes(fixture("trace/xpu_fused.json"))}}),
                "multipart/form-data; boundary=B0undary");
  ASSERT_EQ(r.status, 201u) << r.body;
  EXPECT_EQ(body(r)["name"], "compiled.json");
}

// --- reads ---

TEST_F(ArtifactRoutesTest, ListGetAndRawReturnWhatWasStored) {
  auto first = attach("xpu_math_fallback.json", "&role=before");
  auto second = attach("xpu_fused.json", "&role=after");
  ASSERT_EQ(first.status, 201u);
  ASSERT_EQ(second.status, 201u);
  auto list = call("GET", std::string(kBert) + "/artifacts");
  ASSERT_EQ(list.status, 200u) << list.body;
  auto lj = body(list);
  EXPECT_EQ(lj["run"], "bmg-release-2.12");
  ASSERT_EQ(lj["artifacts"].size(), 2u);
  EXPECT_EQ(lj["artifacts"][0]["role"], "before");
  EXPECT_EQ(lj["artifacts"][0]["findings"][0]["verdict"], "math_fallback");
  EXPECT_EQ(lj["artifacts"][1]["findings"][0]["verdict"], "fused");

  const std::string id = std::to_string(body(first)["id"].get<std::int64_t>());
  auto one = call("GET", "/api/v1/artifacts/" + id);
  ASSERT_EQ(one.status, 200u) << one.body;
  EXPECT_EQ(body(one)["name"], "xpu_math_fallback.json");
  EXPECT_EQ(body(one)["findings"], body(first)["findings"]);
  auto raw = call("GET", "/api/v1/artifacts/" + id + "/raw");
  ASSERT_EQ(raw.status, 200u);
  EXPECT_EQ(raw.content_type, "application/octet-stream");
  EXPECT_EQ(raw.body, read_bytes(fixture("trace/xpu_math_fallback.json")));
  ASSERT_EQ(raw.headers.size(), 1u);
  EXPECT_EQ(raw.headers[0].second, "attachment; filename=\"xpu_math_fallback.json\"");
}

TEST_F(ArtifactRoutesTest, ListOfAnUnknownCaseIs404) {
  auto r = call("GET", "/api/v1/runs/bmg-release-2.12/cases/huggingface/bfloat16/inference/NoSuchModel/artifacts");
  EXPECT_EQ(r.status, 404u) << r.body;
}

TEST_F(ArtifactRoutesTest, GetUnknownArtifactIs404) {
  EXPECT_EQ(call("GET", "/api/v1/artifacts/999").status, 404u);
  EXPECT_EQ(call("GET", "/api/v1/artifacts/999/raw").status, 404u);
}

TEST_F(ArtifactRoutesTest, GetArtifactWithABadIdIs400) {
  for (const char* id : {"abc", "0", "-1", "1x"}) {
    auto r = call("GET", std::string("/api/v1/artifacts/") + id);
    ASSERT_EQ(r.status, 400u) << id;
    EXPECT_EQ(body(r)["error"]["code"], "bad_id");
    EXPECT_EQ(call("GET", std::string("/api/v1/artifacts/") + id + "/raw").status, 400u) << id;
  }
}

// --- case detail ---

TEST_F(ArtifactRoutesTest, CaseWithoutArtifactsAndNoGraphBreaksIsUnexplained) {
  auto r = call("GET", kBert);
  ASSERT_EQ(r.status, 200u) << r.body;
  auto j = body(r);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["kind"], "performance");
  EXPECT_EQ(j["results"][0]["speedup_text"], "0.732601");
  EXPECT_EQ(j["results"][0]["findings"][0]["classifier"], "graph_breaks");
  EXPECT_EQ(j["results"][0]["findings"][0]["verdict"], "no");
  EXPECT_TRUE(j["artifacts"].empty());
  EXPECT_EQ(j["explanation"]["verdict"], "unexplained");
  EXPECT_EQ(j["explanation"]["text"], "unexplained");
}

TEST_F(ArtifactRoutesTest, CaseWithAMathFallbackTraceIsExplainedByIt) {
  auto a = attach("xpu_math_fallback.json", "&role=compiled");
  ASSERT_EQ(a.status, 201u) << a.body;
  auto j = body(call("GET", kBert));
  ASSERT_EQ(j["artifacts"].size(), 1u);
  EXPECT_EQ(j["explanation"]["verdict"], "explained");
  ASSERT_GE(j["explanation"]["causes"].size(), 1u);
  EXPECT_EQ(j["explanation"]["causes"][0]["classifier"], "attention");
  EXPECT_EQ(j["explanation"]["causes"][0]["verdict"], "math_fallback");
  EXPECT_NE(j["explanation"]["causes"][0]["source"].get<std::string>().find("xpu_math_fallback.json"),
            std::string::npos);
  EXPECT_TRUE(j["explanation"]["unknown"].empty());  // the row decides graph_breaks
}

TEST_F(ArtifactRoutesTest, CaseOfAnUnknownModelIs404) {
  auto r = call("GET", "/api/v1/runs/bmg-release-2.12/cases/huggingface/bfloat16/inference/NoSuchModel");
  ASSERT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(body(r)["error"]["code"], "no_model");
}

TEST_F(ArtifactRoutesTest, CaseInTwoConfigsNeedsTheConfigNamed) {
  {
    auto store = app_->store();
    ASSERT_TRUE(store);
    UploadMeta meta;
    meta.run = "bmg-release-2.12";
    meta.platform = "BMG";
    meta.axes = {"huggingface", "bfloat16", "inference", "performance", "xpu", "freezing"};
    const std::string csv =
        "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
        "dynamo_peak_mem,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
        "autograd_compiles,cudagraph_skips\nxpu,BertForQuestionAnswering,32,0.9,10.0,1,0,0,0,1,1,2,1,0,0,0\n";
    auto summary = ingest_files(**store, meta, {{"freezing/bert.csv", csv}});
    ASSERT_TRUE(summary) << summary.error().message;
  }
  auto ambiguous = call("GET", kBert);
  ASSERT_EQ(ambiguous.status, 400u) << ambiguous.body;
  EXPECT_EQ(body(ambiguous)["error"]["code"], "ambiguous_case");
  EXPECT_EQ(call("POST", std::string(kBert) + "/artifacts", read_bytes(fixture("trace/xpu_fused.json"))).status, 400u);

  auto freezing = call("GET", std::string(kBert) + "?config=freezing");
  ASSERT_EQ(freezing.status, 200u) << freezing.body;
  auto j = body(freezing);
  EXPECT_EQ(j["config"], "freezing");
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["findings"][0]["verdict"], "yes");  // graph_breaks=2 in the row
  EXPECT_EQ(j["explanation"]["verdict"], "explained");
  EXPECT_EQ(j["explanation"]["text"], "graph_breaks: yes");
}

TEST_F(ArtifactRoutesTest, CaseWithABadThresholdIs400) {
  auto r = call("GET", std::string(kBert) + "?threshold=abc");
  EXPECT_EQ(r.status, 400u) << r.body;
}

// --- slow list ---

TEST_F(ArtifactRoutesTest, SlowJsonCarriesFindingsPerCase) {
  ASSERT_EQ(attach("xpu_math_fallback.json").status, 201u);
  auto j = body(call("GET", "/api/v1/slow?run=bmg-release-2.12"));
  ASSERT_EQ(j["cases"].size(), 11u);
  int with = 0;
  for (const auto& c : j["cases"]) {
    ASSERT_TRUE(c["findings"].is_array());
    if (c["model"] == "BertForQuestionAnswering" && c["dtype"] == "bfloat16") {
      ++with;
      ASSERT_EQ(c["findings"].size(), 3u);
      EXPECT_EQ(c["findings"][0]["classifier"], "attention");
      EXPECT_EQ(c["findings"][0]["verdict"], "math_fallback");
      EXPECT_FALSE(c["findings"][0]["evidence"].get<std::string>().empty());
      EXPECT_GT(c["findings"][0]["artifact_id"].get<std::int64_t>(), 0);
    } else {
      EXPECT_TRUE(c["findings"].empty()) << c.dump();  // amp_bf16 Bert is another case
    }
  }
  EXPECT_EQ(with, 1);
}

TEST_F(ArtifactRoutesTest, SlowMarkdownStaysTheSameUnlessFindingsAreAsked) {
  auto before = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=md");
  ASSERT_EQ(attach("xpu_math_fallback.json").status, 201u);
  auto after = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=md");
  EXPECT_EQ(after.body, before.body);
  EXPECT_EQ(after.body.find("findings"), std::string::npos);
  auto with = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=md&findings=1");
  ASSERT_EQ(with.status, 200u);
  EXPECT_EQ(with.content_type, "text/markdown; charset=utf-8");
  EXPECT_NE(with.body.find("| source csv | findings |\n"), std::string::npos);
  EXPECT_NE(with.body.find("| BertForQuestionAnswering | 32 | 0.732601 | "
                           "huggingface/bfloat16/inference/performance/"
                           "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv | "
                           "attention: math_fallback; host_bound: "),
            std::string::npos)
      << with.body;
}

TEST_F(ArtifactRoutesTest, SlowWithABadFormatIsStill400) {
  auto r = call("GET", "/api/v1/slow?run=bmg-release-2.12&format=xml&findings=1");
  ASSERT_EQ(r.status, 400u);
  EXPECT_EQ(body(r)["error"]["code"], "bad_format");
}

// --- findings in the reports and the case history ---

TEST_F(ArtifactRoutesTest, SlowReportListsTheClassifierFindingsAfterTheTable) {
  auto plain = call("GET", "/api/v1/runs/bmg-release-2.12/report.md");
  ASSERT_EQ(plain.status, 200u) << plain.body;
  EXPECT_EQ(plain.body.find("## Classifier findings"), std::string::npos);  // no artifact yet: the seed's shape
  ASSERT_EQ(attach("xpu_math_fallback.json").status, 201u);
  auto report = call("GET", "/api/v1/runs/bmg-release-2.12/report.md");
  ASSERT_EQ(report.status, 200u) << report.body;
  EXPECT_EQ(report.body.rfind(plain.body, 0), 0u) << "the report body before the findings must not change";
  const auto section = report.body.find("## Classifier findings");
  ASSERT_NE(section, std::string::npos) << report.body;
  EXPECT_NE(
      report.body.find("- huggingface BertForQuestionAnswering bfloat16 inference: attention: math_fallback", section),
      std::string::npos)
      << report.body.substr(section);
  EXPECT_NE(report.body.find("  - attention math_fallback: ", section), std::string::npos);
}

TEST_F(ArtifactRoutesTest, CaseHistoryCarriesTheFindingsOfEachRun) {
  ASSERT_EQ(attach("xpu_math_fallback.json", "&role=compiled").status, 201u);
  auto r = call("GET", "/api/v1/cases/huggingface/BertForQuestionAnswering/history?platform=BMG&dtype=bfloat16");
  ASSERT_EQ(r.status, 200u) << r.body;
  const auto findings = body(r)["findings"];
  ASSERT_TRUE(findings.is_array());
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["run"], "bmg-release-2.12");
  EXPECT_EQ(findings[0]["role"], "compiled");
  EXPECT_EQ(findings[0]["classifier"], "attention");
  EXPECT_EQ(findings[0]["verdict"], "math_fallback");
  auto other_dtype =
      call("GET", "/api/v1/cases/huggingface/BertForQuestionAnswering/history?platform=BMG&dtype=amp_bf16");
  ASSERT_EQ(other_dtype.status, 200u) << other_dtype.body;
  EXPECT_TRUE(body(other_dtype)["findings"].empty());
}

}  // namespace
}  // namespace perftriage::server
