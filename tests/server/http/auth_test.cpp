// authorize() and cors_headers() (server/http/auth.hpp) on request heads, against the real route table: who may call
// what, which content types a route takes, and the CORS allow-list. The transport calls the same functions before
// reading any body (tests/e2e/ops/auth_test.py checks that end to end).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "schema/token_store.hpp"
#include "server/app/app_context.hpp"
#include "server/http/auth.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-auth-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    settings_.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  AppContext& app() {
    if (!app_) app_.emplace(settings_);
    return *app_;
  }
  std::string token(const std::string& name, std::vector<std::string> scopes,
                    std::optional<std::string> expires = std::nullopt) {
    auto store = app().store();
    EXPECT_TRUE(store);
    auto t = schema::create_token((*store)->db(), name, scopes, std::move(expires));
    EXPECT_TRUE(t) << t.error().message;
    return t->token;
  }
  // authorize() as the transport calls it: nullopt = allowed; else the HTTP status it answers.
  std::optional<unsigned> check(const std::string& method, const std::string& target, const std::string& bearer = {},
                                const std::string& content_type = {}, std::string* token_name = nullptr,
                                Error* error = nullptr) {
    ApiRequest head;
    head.method = method;
    const auto q = target.find('?');
    head.path = target.substr(0, q);
    if (q != std::string::npos) head.query = parse_query(target.substr(q + 1));
    if (!bearer.empty()) head.headers["authorization"] = "Bearer " + bearer;
    if (!content_type.empty()) head.headers["content-type"] = content_type;
    auto refused = authorize(head, router_.options_for(method, head.path), app());
    if (token_name != nullptr) *token_name = head.token_name;
    if (!refused) return std::nullopt;
    if (error != nullptr) *error = *refused;
    return error_response(*refused).status;
  }

  std::filesystem::path dir_;
  Settings settings_;
  std::optional<AppContext> app_;
  Router router_ = make_router();
};

constexpr const char* kCase = "/api/v1/runs/r/cases/huggingface/bfloat16/inference/m/artifacts";

TEST_F(AuthTest, PublicReadsNeedNoTokenWritesDo) {
  EXPECT_EQ(check("GET", "/api/v1/runs"), std::nullopt);
  EXPECT_EQ(check("GET", "/healthz"), std::nullopt);
  EXPECT_EQ(check("GET", "/"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/label", {}, "application/json"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/uploads?run=r", {}, "text/csv"), 401u);
  EXPECT_EQ(check("POST", kCase, {}, "application/json"), 401u);
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", {}, "application/json"), 401u);
  EXPECT_EQ(check("GET", "/api/v1/outbox"), 401u);
  EXPECT_EQ(check("GET", "/api/v1/webhooks/deliveries"), 401u);
  EXPECT_EQ(check("POST", "/webhooks/github", {}, "application/json"), std::nullopt);  // HMAC, not tokens
}

TEST_F(AuthTest, UnauthorizedAnswersCarryAChallenge) {
  Error e;
  ASSERT_EQ(check("POST", "/api/v1/uploads", {}, "text/csv", nullptr, &e), 401u);
  EXPECT_EQ(e.code, "token_required");
  auto res = error_response(e);
  ASSERT_FALSE(res.headers.empty());
  EXPECT_EQ(res.headers.front().first, "WWW-Authenticate");
  EXPECT_EQ(res.headers.front().second, R"(Bearer realm="perftriage")");
  ASSERT_EQ(check("POST", "/api/v1/uploads", "pt_nope", "text/csv", nullptr, &e), 401u);
  EXPECT_EQ(e.code, "invalid_token");
  EXPECT_EQ(error_response(e).headers.front().second, R"(Bearer realm="perftriage", error="invalid_token")");
}

TEST_F(AuthTest, ScopesDecideAndAdminImpliesAll) {
  const auto upload = token("ci", {"upload"});
  const auto read = token("reader", {"read"});
  const auto triage = token("triager", {"triage"});
  const auto bot = token("ops", {"bot"});
  const auto admin = token("root", {"admin"});
  std::string name;
  EXPECT_EQ(check("POST", "/api/v1/uploads?run=r", upload, "text/csv", &name), std::nullopt);
  EXPECT_EQ(name, "ci");
  EXPECT_EQ(check("POST", kCase, upload, "application/gzip"), std::nullopt);
  Error e;
  EXPECT_EQ(check("POST", "/api/v1/uploads?run=r", read, "text/csv", nullptr, &e), 403u);
  EXPECT_EQ(e.code, "insufficient_scope");
  EXPECT_NE(e.message.find("'upload'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("'reader'"), std::string::npos) << e.message;
  EXPECT_EQ(check("POST", "/api/v1/uploads?run=r&replace=true", upload, "text/csv", nullptr, &e), 403u);
  EXPECT_NE(e.message.find("'admin'"), std::string::npos) << e.message;
  EXPECT_EQ(check("POST", "/api/v1/uploads?run=r&replace=true", admin, "text/csv"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", triage, "application/json"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", upload, "application/json"), 403u);
  EXPECT_EQ(check("GET", "/api/v1/outbox", bot), std::nullopt);
  EXPECT_EQ(check("GET", "/api/v1/outbox", triage), 403u);
  EXPECT_EQ(check("GET", "/api/v1/webhooks/deliveries", admin), std::nullopt);
  // A read with a token needs the read scope (or admin) only when reads are token-protected; a public read with any
  // valid token passes, and names the token.
  EXPECT_EQ(check("GET", "/api/v1/runs", upload, {}, &name), std::nullopt);
  EXPECT_EQ(name, "ci");
  settings_.auth.read_access = Access::token;
  app_.reset();
  EXPECT_EQ(check("GET", "/api/v1/runs"), 401u);
  EXPECT_EQ(check("GET", "/api/v1/runs", read, {}, &name), std::nullopt);
  EXPECT_EQ(name, "reader");
  EXPECT_EQ(check("GET", "/api/v1/runs", admin), std::nullopt);
  EXPECT_EQ(check("GET", "/api/v1/runs", upload), 403u);
  EXPECT_EQ(check("GET", "/healthz"), std::nullopt);  // liveness and the dashboard's files stay public
  EXPECT_EQ(check("GET", "/web/app.js"), std::nullopt);
  EXPECT_EQ(check("GET", "/api/v1/no-such-thing"), 401u);
}

// compute_access = "token": classify and label need a read token even where every other read is public.
TEST_F(AuthTest, ComputeAccessTokenGuardsClassifyAndLabelOnly) {
  const auto read = token("reader", {"read"});
  const auto upload = token("ci", {"upload"});
  EXPECT_EQ(check("POST", "/api/v1/classify", {}, "application/json"), std::nullopt) << "public by default";
  settings_.auth.compute_access = Access::token;
  app_.reset();
  EXPECT_EQ(check("POST", "/api/v1/classify", {}, "application/json"), 401u);
  EXPECT_EQ(check("POST", "/api/v1/label", {}, "application/json"), 401u);
  EXPECT_EQ(check("POST", "/api/v1/classify", read, "application/json"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/label", read, "application/json"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/label", upload, "application/json"), 403u) << "a token without read";
  EXPECT_EQ(check("GET", "/api/v1/runs"), std::nullopt) << "other reads stay public";
}

TEST_F(AuthTest, RevokedExpiredAndUnknownTokensAre401) {
  const auto old = token("old", {"admin"}, schema::iso8601_from_now(-5));
  const auto gone = token("gone", {"admin"});
  {
    auto store = app().store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(*schema::revoke_token((*store)->db(), "gone"));
  }
  Error e;
  EXPECT_EQ(check("POST", "/api/v1/uploads", old, "text/csv", nullptr, &e), 401u);
  EXPECT_NE(e.message.find("expired"), std::string::npos) << e.message;
  EXPECT_EQ(check("POST", "/api/v1/uploads", gone, "text/csv", nullptr, &e), 401u);
  EXPECT_NE(e.message.find("revoked"), std::string::npos) << e.message;
  std::string forged = gone;
  forged.back() = forged.back() == 'a' ? 'b' : 'a';
  EXPECT_EQ(check("POST", "/api/v1/uploads", forged, "text/csv", nullptr, &e), 401u);
  EXPECT_EQ(e.message, "unknown API token");
  // A bad token is refused even where none is needed (a public read), so a client learns its token is bad.
  EXPECT_EQ(check("GET", "/api/v1/runs", gone), 401u);
  // Not a bearer token at all.
  ApiRequest head;
  head.method = "POST";
  head.path = "/api/v1/uploads";
  head.headers["authorization"] = "Basic dXNlcjpwYXNz";
  auto refused = authorize(head, router_.options_for("POST", head.path), app());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, ErrorKind::unauthorized);
}

TEST_F(AuthTest, StateChangingRoutesTakeOnlyTheirContentTypes) {
  const auto admin = token("root", {"admin"});
  Error e;
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", admin, "text/plain", nullptr, &e), 415u);
  EXPECT_NE(e.message.find("application/json"), std::string::npos) << e.message;
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", admin, "application/x-www-form-urlencoded"), 415u);
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", admin, "Application/JSON; charset=utf-8"), std::nullopt);
  EXPECT_EQ(check("POST", "/api/v1/label", {}, "text/plain"), 415u);
  EXPECT_EQ(check("POST", "/api/v1/label", {}, ""), 415u);
  EXPECT_EQ(check("POST", "/api/v1/classify", {}, "application/x-www-form-urlencoded"), 415u);
  EXPECT_EQ(check("POST", "/api/v1/uploads", admin, "application/x-www-form-urlencoded", nullptr, &e), 415u);
  EXPECT_EQ(e.code, "unsupported_content_type");
  EXPECT_EQ(check("POST", "/api/v1/uploads", admin, "multipart/form-data; boundary=x"), std::nullopt);
  // The token is checked first: an anonymous cross-site form post is a 401 whatever its type.
  EXPECT_EQ(check("POST", "/api/v1/outbox/tracking-issue", {}, "text/plain"), 401u);
}

TEST_F(AuthTest, CorsOnlyForAllowListedOrigins) {
  ApiRequest head;
  head.method = "GET";
  head.path = "/api/v1/runs";
  head.headers["origin"] = "https://dash.example";
  EXPECT_TRUE(cors_headers(head, app()).empty());  // CORS off by default
  settings_.auth.cors_origins = {"https://dash.example"};
  app_.reset();
  auto h = cors_headers(head, app());
  auto value = [&](const std::string& name) {
    for (const auto& [n, v] : h)
      if (n == name) return v;
    return std::string();
  };
  EXPECT_EQ(value("Access-Control-Allow-Origin"), "https://dash.example");
  EXPECT_EQ(value("Vary"), "Origin");
  EXPECT_NE(value("Access-Control-Allow-Headers").find("Authorization"), std::string::npos);
  EXPECT_EQ(value("Access-Control-Allow-Credentials"), "");  // no cookies, ever
  head.headers["origin"] = "http://evil.example";
  h = cors_headers(head, app());
  EXPECT_EQ(value("Access-Control-Allow-Origin"), "");
  head.headers["origin"] = "https://dash.example.evil.example";
  h = cors_headers(head, app());
  EXPECT_EQ(value("Access-Control-Allow-Origin"), "");
  // A preflight needs no token, even when reads do; the router answers it 204 with Allow.
  settings_.auth.read_access = Access::token;
  app_.reset();
  EXPECT_EQ(check("OPTIONS", "/api/v1/uploads"), std::nullopt);
  ApiRequest pre;
  pre.method = "OPTIONS";
  pre.path = "/api/v1/uploads";
  auto res = router_.dispatch(pre, app());
  EXPECT_EQ(res.status, 204u);
  ASSERT_FALSE(res.headers.empty());
  EXPECT_EQ(res.headers.front().second, "POST, OPTIONS");
}

TEST(Scopes, NamesRoundTrip) {
  for (Scope s : {Scope::read, Scope::upload, Scope::triage, Scope::bot, Scope::admin}) {
    EXPECT_EQ(parse_scope(scope_name(s)), s);
  }
  EXPECT_EQ(parse_scope("none"), std::nullopt);
  EXPECT_EQ(parse_scope("write"), std::nullopt);
}

}  // namespace
}  // namespace perftriage::server
