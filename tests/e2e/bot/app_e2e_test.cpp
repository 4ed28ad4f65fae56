// End-to-end in GitHub App mode: `perftriage serve --github-app-id --github-private-key-file` against a fake GitHub
// that verifies the App's JWT with its public key, mints installation tokens and answers 401 to anything else.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "tests/e2e/bot/bot_support.hpp"
#include "tests/e2e/bot/fake_github.hpp"
#include "tests/support/rsa_key.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;

constexpr const char* kAppId = "4242";
constexpr std::int64_t kInstallation = 77;

const RsaKeyPair& app_key() {
  static const auto pair = make_rsa_key();
  return pair;
}

json installation_repositories(const std::string& action, const std::string& repo) {
  json p = {{"action", action},
            {"installation", {{"id", kInstallation}}},
            {"repository_selection", "selected"},
            {"repositories_added", json::array()},
            {"repositories_removed", json::array()},
            {"sender", {{"login", "admin"}}}};
  p["repositories_" + action].push_back({{"full_name", repo}});
  return p;
}

class AppE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir_.path() / "app.pem", app_key().private_pem);
    write_file(dir_.path() / "secret", std::string(kSecret) + "\n");
    github_.enable_app(kAppId, app_key().public_pem);
    db_ = testing_support::e2e_db((dir_.path() / "db.sqlite").string());
  }
  void TearDown() override { server_.reset(); }  // before the directory goes
  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--db", db_, "--github-api", github_.base_url(), "--bot-login", kBot};
    args.insert(args.end(),
                {"--github-app-id", kAppId, "--github-private-key-file", (dir_.path() / "app.pem").string()});
    args.insert(args.end(),
                {"--webhook-secret-file", (dir_.path() / "secret").string(), "--github-min-interval-ms", "20"});
    // The default timeout and attempts: an App's action makes up to three requests (lookup, mint, the call), and on a
    // loaded machine a 600 ms cap with 3 attempts failed one now and then. The refusals tested here are not retried.
    args.insert(args.end(), {"--github-backoff-ms", "100"});
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<ServerProcess>(PERFTRIAGE_BINARY, args);
  }
  unsigned short port() const { return server_->port(); }
  HttpReply hook(const std::string& event, const std::string& delivery, const json& payload) {
    return send_webhook(port(), event, delivery, payload.dump());
  }
  std::vector<std::string> labels() {
    auto v = github_.issue_labels(kRepo, kSeedNumber);
    std::sort(v.begin(), v.end());
    return v;
  }

  TempDir dir_{"perftriage-app"};
  std::string db_;
  FakeGitHub github_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(AppE2E, TheBotLabelsWithItsInstallationTokenMintedOnceByAVerifiedJwt) {
  github_.install(kRepo, kInstallation);
  start();
  ASSERT_EQ(hook("issues", "d-1", issue_payload("opened", "alice")).status, 202u);
  ASSERT_TRUE(drain(port())) << outbox(port()).dump(2);
  EXPECT_EQ(labels().size(), 6u);
  EXPECT_EQ(github_.last_auth_failure(), "");
  EXPECT_EQ(github_.tokens_minted(), 1);  // eight actions, one token
  const auto lookups = github_.requests("GET", "^/repos/intel/torch-xpu-ops/installation$");
  ASSERT_EQ(lookups.size(), 1u);
  EXPECT_EQ(lookups[0].headers.at("authorization").rfind("Bearer ey", 0), 0u);  // the JWT
  const auto mutations = github_.requests("POST", "^/repos/");
  ASSERT_EQ(mutations.size(), 8u);  // 6 labels created, 1 add, 1 comment
  for (const auto& m : mutations) EXPECT_EQ(m.headers.at("authorization"), "token ghs_fake1") << m.target;
  EXPECT_EQ(outbox(port(), "sent")["actions"].size(), 8u);
}

// One service for two trackers, each installed on its own, each labeled with its own taxonomy; a signed delivery from
// a third repository is answered and ignored.
TEST_F(AppE2E, TwoInstallationsEachLabeledWithItsTaxonomyAndAnUnlistedRepositoryIgnored) {
  github_.install(kRepo, kInstallation);
  github_.install("pytorch/pytorch", 78);
  github_.install("Codertocat/Hello-World", 79);
  write_file(dir_.path() / "perftriage.toml",
             std::string("[[github.repos]]\nrepo = \"intel/torch-xpu-ops\"\ntaxonomy = \"torch-xpu-ops\"\n"
                         "[[github.repos]]\nrepo = \"pytorch/pytorch\"\ntaxonomy = \"pytorch\"\ncomment = false\n"));
  start({"--config", (dir_.path() / "perftriage.toml").string()});
  const std::string title = "[BMG] torch.compile inductor: ElectraForQuestionAnswering bf16 slower than eager";
  const auto opened = [&](const std::string& repo, std::int64_t number) {
    auto p = issue_payload("opened", "alice", {}, "The speedup is 0.66 on B580 with bfloat16.", title);
    p["repository"]["full_name"] = repo;
    p["issue"]["number"] = number;
    return p;
  };
  ASSERT_EQ(hook("issues", "d-x", opened(kRepo, 5)).status, 202u);
  ASSERT_EQ(hook("issues", "d-p", opened("pytorch/pytorch", 6)).status, 202u);
  const auto ignored = hook("issues", "d-h", opened("Codertocat/Hello-World", 7));
  ASSERT_EQ(ignored.status, 200u);
  EXPECT_EQ(json::parse(ignored.body)["reason"], "repository Codertocat/Hello-World is not in [[github.repos]]");
  ASSERT_TRUE(drain(port())) << outbox(port()).dump(2);
  const auto xpu = github_.issue_labels(kRepo, 5);
  const auto pt = github_.issue_labels("pytorch/pytorch", 6);
  EXPECT_NE(std::find(xpu.begin(), xpu.end(), "hw: BMG"), xpu.end()) << json(xpu);  // torch-xpu-ops' own label
  EXPECT_EQ(std::find(pt.begin(), pt.end(), "hw: BMG"), pt.end()) << json(pt);      // pytorch has none such
  EXPECT_NE(std::find(pt.begin(), pt.end(), "oncall: pt2"), pt.end()) << json(pt);
  EXPECT_EQ(github_.comments(kRepo, 5).size(), 1u);
  EXPECT_TRUE(github_.comments("pytorch/pytorch", 6).empty());  // comment = false there
  EXPECT_TRUE(github_.requests("POST", "^/repos/Codertocat/").empty());
  EXPECT_EQ(github_.tokens_minted(), 2);  // one per installation
}

TEST_F(AppE2E, ARevokedTokenGets401AndTheBotMintsAnotherAndCarriesOn) {
  github_.install(kRepo, kInstallation);
  start();
  ASSERT_EQ(hook("issues", "d-1", issue_payload("opened", "alice")).status, 202u);
  ASSERT_TRUE(drain(port()));
  github_.revoke_tokens();
  github_.remove_issue_label(kRepo, kSeedNumber, "hw: BMG");
  ASSERT_EQ(hook("issue_comment", "d-2", comment_payload("/label", "alice", {})).status, 202u);
  ASSERT_TRUE(drain(port())) << outbox(port()).dump(2);
  EXPECT_EQ(github_.last_auth_failure(), "Bad credentials");  // the stale token was tried and refused
  EXPECT_EQ(github_.tokens_minted(), 2);
  EXPECT_EQ(outbox(port())["counts"].value("failed", 0), 0) << outbox(port()).dump(2);
  EXPECT_NE(std::find(labels().begin(), labels().end(), "hw: BMG"), labels().end());
}

TEST_F(AppE2E, ARepositoryTheAppLosesIsNoLongerActedOnUntilItIsAddedBack) {
  github_.install(kRepo, kInstallation);
  start();
  auto r = hook("installation_repositories", "d-rm", installation_repositories("removed", kRepo));
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body)["status"], "recorded");
  EXPECT_EQ(json::parse(r.body)["repositories_removed"], json::array({kRepo}));
  r = hook("issues", "d-1", issue_payload("opened", "alice"));
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body)["status"], "ignored");
  EXPECT_EQ(json::parse(r.body)["reason"], "the App was removed from intel/torch-xpu-ops (installation 77)");
  EXPECT_TRUE(outbox(port())["actions"].empty());
  const auto done = json::parse(http_call(port(), "GET", "/api/v1/webhooks/deliveries?state=done").body);
  bool reason_listed = false;
  for (const auto& d : done["deliveries"])
    reason_listed |= d.value("reason", "").find("removed from") != std::string::npos;
  EXPECT_TRUE(reason_listed) << done.dump(2);

  r = hook("installation_repositories", "d-add", installation_repositories("added", kRepo));
  ASSERT_EQ(r.status, 200u) << r.body;
  ASSERT_EQ(hook("issues", "d-2", issue_payload("opened", "alice")).status, 202u);
  ASSERT_TRUE(drain(port()));
  EXPECT_EQ(labels().size(), 6u);
}

TEST_F(AppE2E, AnUninstalledAppFailsItsQueuedActionsWithTheReasonNotRetries) {
  github_.install(kRepo, kInstallation);
  start();
  // Deleted after actions were queued would race the worker; deleted first, then a delivery GitHub sent before it.
  auto r = hook("installation", "d-del",
                {{"action", "deleted"},
                 {"installation", {{"id", kInstallation}}},
                 {"repositories", json::array({{{"full_name", kRepo}}})},
                 {"sender", {{"login", "admin"}}}});
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body)["repositories_removed"], json::array({kRepo}));
  EXPECT_EQ(json::parse(hook("issues", "d-1", issue_payload("opened", "alice")).body)["status"], "ignored");
  EXPECT_TRUE(github_.requests("POST", "^/repos/").empty());
}

TEST_F(AppE2E, ARepositoryWithoutTheAppFailsAtOnceNamingIt) {
  start();  // the App is installed nowhere
  ASSERT_EQ(hook("issues", "d-1", issue_payload("opened", "alice")).status, 202u);
  ASSERT_TRUE(drain(port())) << outbox(port()).dump(2);
  const auto failed = outbox(port(), "failed")["actions"];
  ASSERT_FALSE(failed.empty());
  for (const auto& a : failed) {
    EXPECT_EQ(a["attempts"], 1) << a.dump();  // refused, not retried
    EXPECT_NE(a["last_error"].get<std::string>().find("the App is not installed on intel/torch-xpu-ops"),
              std::string::npos)
        << a.dump();
  }
  EXPECT_TRUE(github_.requests("POST", "^/repos/").empty());
}

}  // namespace
}  // namespace perftriage::testing
