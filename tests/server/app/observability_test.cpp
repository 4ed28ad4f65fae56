// server/http/request_id.hpp: request ids (echoed when well-formed, generated otherwise), error bodies stamped with
// the id; server/app/observability.hpp: the metrics exposition (label values from route patterns and bounded sets,
// gauges read from the database at scrape time).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <set>

#include "server/app/app_context.hpp"
#include "server/app/observability.hpp"
#include "server/http/request_id.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

ApiRequest with_request_id(std::string id) {
  ApiRequest req;
  req.headers["x-request-id"] = std::move(id);
  return req;
}

bool is_hex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

TEST(RequestId, AWellFormedClientIdIsEchoed) {
  EXPECT_EQ(request_id_for(with_request_id("ci-run_42.7")), "ci-run_42.7");
  EXPECT_EQ(request_id_for(with_request_id(std::string(64, 'a'))), std::string(64, 'a'));
}

TEST(RequestId, AnythingElseGetsAFreshRandomId) {
  std::set<std::string> seen;
  const std::vector<std::string> refused{"", std::string(65, 'a'), "has space", "semi;colon", "new\nline", "ünïcode"};
  for (const auto& bad : refused) {
    const auto id = request_id_for(with_request_id(bad));
    EXPECT_NE(id, bad);
    EXPECT_EQ(id.size(), 32u) << id;
    EXPECT_TRUE(is_hex(id)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(request_id_for(ApiRequest{}).size(), 32u);
  EXPECT_EQ(seen.size(), 6u);  // never the same twice
}

TEST(StampResponse, EveryResponseCarriesTheHeaderAndErrorsCarryTheIdInTheBody) {
  auto error = error_response(make_error(ErrorKind::not_found, "no_run", "no run 'x'"));
  stamp_response(error, "abc-123");
  ASSERT_EQ(error.headers.back(), (std::pair<std::string, std::string>{"X-Request-Id", "abc-123"}));
  const auto body = json::parse(error.body);
  EXPECT_EQ(body["error"]["request_id"], "abc-123");
  EXPECT_EQ(body["error"]["code"], "no_run");

  auto ok = json_response(200, {{"error", {{"not", "an error"}}}});  // a success body is never parsed or changed
  const auto before = ok.body;
  stamp_response(ok, "abc-123");
  EXPECT_EQ(ok.body, before);
  EXPECT_EQ(ok.headers.back().first, "X-Request-Id");

  auto text = text_response(404, "text/plain", "not json");
  stamp_response(text, "abc-123");
  EXPECT_EQ(text.body, "not json");

  auto twice = error_response(make_error(ErrorKind::invalid_input, "bad", "bad"));
  stamp_response(twice, "one");
  stamp_response(twice, "two");
  EXPECT_EQ(std::count_if(twice.headers.begin(), twice.headers.end(),
                          [](const auto& h) { return h.first == "X-Request-Id"; }),
            1);
  EXPECT_EQ(json::parse(twice.body)["error"]["request_id"], "two");
}

class Metrics : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-obs-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    settings.access_log.enabled = false;
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string scrape() {
    auto res = testing::call_route(router_, *app_, "GET", "/metrics", "", "");
    EXPECT_EQ(res.status, 200u);
    EXPECT_EQ(res.content_type, "text/plain; version=0.0.4; charset=utf-8");
    return res.body;
  }
  static bool has_line(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(prefix, 0) == 0) return true;
    return false;
  }
  static double value(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
    ADD_FAILURE() << "no sample " << name;
    return 0;
  }
  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_;
};

TEST_F(Metrics, RequestsAreCountedByRoutePatternNeverByPath) {
  RequestRecord r;
  r.method = "GET";
  r.route = "/api/v1/runs/{key}";
  r.target = "/api/v1/runs/secret-run-name";
  r.status = 404;
  r.bytes_in = 0;
  r.bytes_out = 120;
  r.seconds = 0.003;
  app_->obs().request_done(r);
  app_->obs().request_done(r);
  r.method = "FROBNICATE";  // methods outside the known set are folded, never a new label value
  app_->obs().request_done(r);
  const auto text = scrape();
  const std::string series = R"(route="/api/v1/runs/{key}")";
  EXPECT_TRUE(has_line(text, R"(perftriage_http_requests_total{method="GET",)" + series + R"(,status="404"} 2)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(perftriage_http_requests_total{method="other",)" + series + R"(,status="404"} 1)"));
  EXPECT_TRUE(has_line(text, "perftriage_http_response_bytes_total{" + series + "} 360"));
  EXPECT_TRUE(has_line(
      text, R"(perftriage_http_request_duration_seconds_bucket{method="GET",)" + series + R"(,le="0.005"} 2)"));
  EXPECT_EQ(text.find("secret-run-name"), std::string::npos);
  EXPECT_EQ(text.find("FROBNICATE"), std::string::npos);
}

TEST_F(Metrics, ServiceCountersAndDatabaseGauges) {
  if (testing_support::on_postgres()) GTEST_SKIP() << "SQLite only: the database gauges are the file's sizes";
  app_->obs().rows_ingested(17);
  app_->obs().upload_refused("bad_archive");
  app_->obs().upload_refused("evil label\"value");  // not an identifier: folded
  app_->obs().webhook_delivery("issues", "queued");
  app_->obs().webhook_delivery("made-up-event", "unauthorized");
  app_->obs().connection_opened();
  app_->obs().connection_opened();
  app_->obs().connection_closed();
  const auto text = scrape();
  EXPECT_TRUE(has_line(text, "perftriage_rows_ingested_total 17")) << text;
  EXPECT_TRUE(has_line(text, R"(perftriage_uploads_refused_total{reason="bad_archive"} 1)"));
  EXPECT_TRUE(has_line(text, R"(perftriage_uploads_refused_total{reason="other"} 1)"));
  EXPECT_TRUE(has_line(text, R"(perftriage_webhook_deliveries_total{event="issues",outcome="queued"} 1)"));
  EXPECT_TRUE(has_line(text, R"(perftriage_webhook_deliveries_total{event="other",outcome="unauthorized"} 1)"));
  EXPECT_TRUE(has_line(text, "perftriage_open_connections 1"));
  EXPECT_TRUE(has_line(text, R"(perftriage_cache_lookups_total{cache="dashboard",result="hit"} 0)"));
  EXPECT_TRUE(has_line(text, R"(perftriage_build_info{version=")"));
  EXPECT_TRUE(has_line(text, "process_start_time_seconds "));
  // Read from the database at scrape time (the scrape itself opened and migrated it).
  EXPECT_TRUE(has_line(text, "perftriage_database_up 1"));
  EXPECT_TRUE(has_line(text, R"(perftriage_outbox_actions{state="failed"} 0)"));
  EXPECT_TRUE(has_line(text, R"(perftriage_webhook_deliveries{state="quarantined"} 0)"));
  EXPECT_TRUE(has_line(text, "perftriage_runs 0"));
  // A fresh database in WAL mode may still be all in the log: the two together are not empty.
  EXPECT_GT(value(text, "perftriage_database_bytes") + value(text, "perftriage_wal_bytes"), 0) << text;
}

TEST_F(Metrics, AnUploadCountsItsRows) {
  const std::string csv =
      "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
      "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
      "cudagraph_skips\n"
      "xpu,A,8,1.2,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
      "xpu,B,8,0.5,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
      "xpu,C,8,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n";
  auto res = testing::call_route(router_, *app_, "POST",
                                 "/api/v1/uploads?run=r1&platform=BMG&path=huggingface/bfloat16/inference/"
                                 "performance/r.csv",
                                 csv, "text/csv");
  ASSERT_EQ(res.status, 201u) << res.body;
  EXPECT_TRUE(has_line(scrape(), "perftriage_rows_ingested_total 3"));
  res = testing::call_route(router_, *app_, "POST",
                            "/api/v1/uploads?run=r1&platform=BMG&path=huggingface/bfloat16/inference/performance/r.csv",
                            csv, "text/csv");
  ASSERT_EQ(res.status, 200u) << res.body;  // a duplicate stores nothing and counts nothing
  EXPECT_TRUE(has_line(scrape(), "perftriage_rows_ingested_total 3"));
  res = testing::call_route(router_, *app_, "POST", "/api/v1/uploads?run=r1&platform=BMG", "", "text/csv");
  ASSERT_EQ(res.status, 400u);
  EXPECT_TRUE(has_line(scrape(), R"(perftriage_uploads_refused_total{reason="empty_body"} 1)"));
  EXPECT_TRUE(has_line(scrape(), "perftriage_runs 1"));
}

}  // namespace
}  // namespace perftriage::server
