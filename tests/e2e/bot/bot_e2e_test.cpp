// End-to-end: the real `perftriage serve`, signed webhooks in, and a fake GitHub on loopback that records what the
// bot sends and can fail, rate-limit or hang on cue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "tests/e2e/bot/bot_support.hpp"
#include "tests/e2e/bot/fake_github.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Fault = FakeGitHub::Fault;

const std::vector<std::string> kSeedLabels{"dtype: bfloat16",  "hw: BMG",     "inference",
                                           "module: inductor", "performance", "test: e2e"};

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class BotE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-bot-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    write_file(dir_ / "token", std::string(kToken) + "\n");
    write_file(dir_ / "secret", std::string(kSecret) + "\n");
    db_ = testing_support::e2e_db((dir_ / "db.sqlite").string());
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Starts (or restarts) the server on the same database.
  void start(bool with_token = true, bool with_secret = true) {
    std::vector<std::string> args{"--db",
                                  db_,
                                  "--github-api",
                                  github_.base_url(),
                                  "--bot-login",
                                  kBot,
                                  "--github-min-interval-ms",
                                  "20",
                                  "--github-timeout-ms",
                                  "600",
                                  "--github-backoff-ms",
                                  "100",
                                  "--github-max-attempts",
                                  "3"};
    if (with_token) args.insert(args.end(), {"--github-token-file", (dir_ / "token").string()});
    if (with_secret) args.insert(args.end(), {"--webhook-secret-file", (dir_ / "secret").string()});
    // PostgreSQL: an action claimed by a killed server is sent again when its claim runs out (several replicas may
    // share the outbox); short here, so that the restart tests see it soon.
    if (testing_support::on_postgres()) args.insert(args.end(), {"--github-claim-lease-ms", "2000"});
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    server_.reset();
    server_ = std::make_unique<ServerProcess>(PERFTRIAGE_BINARY, args);
  }
  unsigned short port() const { return server_->port(); }
  HttpReply hook(const std::string& event, const std::string& delivery, const json& payload) {
    return send_webhook(port(), event, delivery, payload.dump());
  }
  void open_seed_issue() {
    auto r = hook("issues", "d-open", issue_payload("opened", "alice"));
    ASSERT_EQ(r.status, 202u) << r.body;
    ASSERT_TRUE(drain(port())) << outbox(port()).dump(2);
  }
  std::vector<FakeGitHub::Comment> comments() { return github_.comments(kRepo, kSeedNumber); }

  std::filesystem::path dir_;
  std::vector<std::string> extra_args_;  // more flags for `serve`
  std::string db_;                       // the SQLite file, or a PostgreSQL database's URL (pg: tests)
  FakeGitHub github_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(BotE2E, OpenedIssueGetsItsLabelsAndOneComment) {
  start();
  auto r = hook("issues", "d-1", issue_payload("opened", "alice"));
  ASSERT_EQ(r.status, 202u) << r.body;
  auto j = json::parse(r.body);
  EXPECT_EQ(j["status"], "queued");
  EXPECT_EQ(j["actions"], 8);  // 6 labels created, 1 add, 1 comment
  EXPECT_EQ(j["dry_run"], false);
  ASSERT_TRUE(drain(port()));

  EXPECT_EQ(sorted(github_.issue_labels(kRepo, kSeedNumber)), kSeedLabels);
  auto repo_labels = github_.repo_labels(kRepo);
  EXPECT_EQ(repo_labels.size(), 6u);
  for (const auto& [name, color] : repo_labels) EXPECT_EQ(color.size(), 6u) << name;
  ASSERT_EQ(comments().size(), 1u);
  EXPECT_EQ(comments()[0].body.rfind("<!-- perftriage:label -->", 0), 0u);
  EXPECT_NE(comments()[0].body.find("label-issue: intel/torch-xpu-ops#3761"), std::string::npos);

  const auto requests = github_.requests();
  ASSERT_FALSE(requests.empty());
  std::vector<FakeGitHub::Request> mutations;
  for (const auto& q : requests) {
    EXPECT_EQ(q.headers.at("authorization"), std::string("Bearer ") + kToken);
    EXPECT_EQ(q.headers.at("accept"), "application/vnd.github+json");
    EXPECT_EQ(q.headers.at("x-github-api-version"), "2022-11-28");
    if (q.method != "GET") mutations.push_back(q);
  }
  ASSERT_EQ(mutations.size(), 8u);
  for (std::size_t i = 1; i < mutations.size(); ++i) {  // one at a time, >= 20 ms apart
    EXPECT_GE(mutations[i].at - mutations[i - 1].at, milliseconds(15)) << i;
  }
  auto sent = outbox(port(), "sent");
  EXPECT_EQ(sent["actions"].size(), 8u);
  EXPECT_EQ(sent["counts"]["failed"], 0);

  auto issues = json::parse(http_call(port(), "GET", "/api/v1/issues").body)["issues"];
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0]["number"], kSeedNumber);
  EXPECT_EQ(issues[0]["labels"].size(), 6u);
  ASSERT_FALSE(issues[0]["axes"].empty());
  EXPECT_TRUE(issues[0]["axes"][0].contains("reason"));
  EXPECT_TRUE(issues[0]["axes"][0].contains("layer"));  // which layer decided: rules, default, issue or model
}

// [github] label_layers = tiered: the bot applies a label only where its calibrated probability of being kept reaches
// 0.9. On the seed, the built-in model's calibration puts dtype: bfloat16 just under (the rules' dtype values were
// kept on 82 % of the held-out issues that judge them): five labels applied, the sixth in the one comment as a
// suggestion with its probability, and in the stored result.
TEST_F(BotE2E, TieredLayersApplyWhatIsNearlyCertainAndSuggestTheRest) {
  extra_args_ = {"--bot-label-layers", "tiered"};
  start();
  auto r = hook("issues", "d-1", issue_payload("opened", "alice"));
  ASSERT_EQ(r.status, 202u) << r.body;
  ASSERT_TRUE(drain(port()));
  EXPECT_EQ(sorted(github_.issue_labels(kRepo, kSeedNumber)),
            (std::vector<std::string>{"hw: BMG", "inference", "module: inductor", "performance", "test: e2e"}));
  ASSERT_EQ(comments().size(), 1u);
  EXPECT_NE(comments()[0].body.find("dtype: bfloat16"), std::string::npos) << comments()[0].body;
  EXPECT_NE(comments()[0].body.find("Likely, p 0.89 (applied from 0.90)"), std::string::npos) << comments()[0].body;
  auto issues = json::parse(http_call(port(), "GET", "/api/v1/issues").body)["issues"];
  ASSERT_EQ(issues.size(), 1u);
  const auto& suggested = issues[0]["result"]["suggested"];
  ASSERT_EQ(suggested.size(), 1u) << issues[0]["result"].dump();
  EXPECT_EQ(suggested[0]["value"], "dtype: bfloat16");
  EXPECT_LT(suggested[0]["p"].get<double>(), 0.9);
  for (const auto& a : issues[0]["result"]["axes"])
    if (a["layer"] == "rules" && a["axis"] != "type" && a["axis"] != "priority") {
      EXPECT_GE(a["p"].get<double>(), 0.9) << a.dump();
    }
}

TEST_F(BotE2E, BadSignatureIs401AndNothingIsQueued) {
  start();
  const std::string body = issue_payload("opened", "alice").dump();
  auto wrong = send_webhook(port(), "issues", "d-bad", body, "not-the-secret");
  EXPECT_EQ(wrong.status, 401u) << wrong.body;
  EXPECT_EQ(json::parse(wrong.body)["error"]["code"], "bad_signature");
  auto unsigned_ = send_webhook(port(), "issues", "d-bad", body, "");
  EXPECT_EQ(unsigned_.status, 401u);
  auto ob = outbox(port());
  EXPECT_TRUE(ob["actions"].empty());
  // Not recorded as delivered either: the properly signed delivery is still accepted.
  EXPECT_EQ(hook("issues", "d-bad", issue_payload("opened", "alice")).status, 202u);
}

TEST_F(BotE2E, WithoutASecretEveryWebhookIs401) {
  start(true, false);
  auto r = hook("issues", "d-1", issue_payload("opened", "alice"));
  EXPECT_EQ(r.status, 401u);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "webhook_secret_missing");
  EXPECT_TRUE(outbox(port())["actions"].empty());
}

TEST_F(BotE2E, SignedButNotJsonIs400) {
  start();
  auto r = send_webhook(port(), "issues", "d-1", "{not json");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "bad_json");
}

TEST_F(BotE2E, MissingDeliveryIdIs400) {
  start();
  const std::string body = issue_payload("opened", "alice").dump();
  auto r = http_request(port(), "POST", "/webhooks/github",
                        {{"X-GitHub-Event", "issues"},
                         {"X-Hub-Signature-256", "sha256=" + server::webhook::hmac_sha256_hex(kSecret, body)}},
                        body);
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "missing_delivery");
}

TEST_F(BotE2E, RedeliveryHappensOnce) {
  start();
  const auto payload = issue_payload("opened", "alice");
  ASSERT_EQ(hook("issues", "d-same", payload).status, 202u);
  auto again = hook("issues", "d-same", payload);
  EXPECT_EQ(again.status, 200u);
  EXPECT_EQ(json::parse(again.body)["status"], "duplicate");
  ASSERT_TRUE(drain(port()));
  EXPECT_EQ(outbox(port())["actions"].size(), 8u);
  EXPECT_EQ(github_.requests("POST", "/issues/3761/comments").size(), 1u);
  EXPECT_EQ(github_.requests("POST", "/issues/3761/labels").size(), 1u);
  EXPECT_EQ(comments().size(), 1u);
}

TEST_F(BotE2E, PingIsAnswered) {
  start();
  auto r = hook("ping", "d-ping", {{"zen", "Design for failure."}, {"hook_id", 1}});
  EXPECT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body)["status"], "ok");
}

TEST_F(BotE2E, TheBotsOwnEventsAreIgnored) {
  start();
  auto r = hook("issues", "d-self", issue_payload("opened", kBot));
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(json::parse(r.body)["status"], "ignored");
  EXPECT_TRUE(outbox(port())["actions"].empty());
}

TEST_F(BotE2E, EditedIssueUpdatesTheSameComment) {
  start();
  open_seed_issue();
  ASSERT_EQ(comments().size(), 1u);
  const auto first_id = comments()[0].id;
  auto edited = issue_payload("edited", "alice", kSeedLabels, seed_body() + "\nAlso seen on the nightly.\n");
  auto r = hook("issues", "d-edit", edited);
  ASSERT_EQ(r.status, 202u) << r.body;
  EXPECT_EQ(json::parse(r.body)["actions"], 1);  // every label is already there: the comment only
  ASSERT_TRUE(drain(port()));
  ASSERT_EQ(comments().size(), 1u);
  EXPECT_EQ(comments()[0].id, first_id);
  EXPECT_EQ(github_.requests("PATCH", "/issues/comments/" + std::to_string(first_id)).size(), 1u);
  EXPECT_EQ(github_.requests("POST", "/comments").size(), 1u);
}

TEST_F(BotE2E, ALabelRemovedByAHumanIsNotReapplied) {
  start();
  open_seed_issue();
  // The bot's own `labeled` events come back and are ignored.
  auto own = hook("issues", "d-l1", label_event("labeled", "performance", kBot, kSeedLabels));
  EXPECT_EQ(json::parse(own.body)["status"], "ignored");
  std::vector<std::string> left;
  for (const auto& l : kSeedLabels)
    if (l != "performance") left.push_back(l);
  github_.remove_issue_label(kRepo, kSeedNumber, "performance");
  auto r = hook("issues", "d-un", label_event("unlabeled", "performance", "alice", left));
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body)["suppressed"], true);

  auto relabel = hook("issue_comment", "d-cmd", comment_payload("/label", "bob", left));
  ASSERT_EQ(relabel.status, 202u) << relabel.body;
  ASSERT_TRUE(drain(port()));
  auto reopened = hook("issues", "d-reopen", issue_payload("reopened", "alice", left));
  ASSERT_EQ(reopened.status, 202u);
  ASSERT_TRUE(drain(port()));

  const auto labels = github_.issue_labels(kRepo, kSeedNumber);
  EXPECT_EQ(std::count(labels.begin(), labels.end(), "performance"), 0);
  EXPECT_EQ(github_.requests("POST", "/issues/3761/labels").size(), 1u);  // only the first labeling added labels
  EXPECT_EQ(comments().size(), 1u);
}

// What maintainers did to the bot's labels: one applied label removed, one it did not apply added (and one outside
// the taxonomy, which corrects nothing). GET /api/v1/issues/labels counts the first removed, the second added, the
// rest kept; /metrics has the same as gauges.
TEST_F(BotE2E, AMaintainersCorrectionsAreCountedPerLabel) {
  start();
  open_seed_issue();
  std::vector<std::string> left;
  for (const auto& l : kSeedLabels)
    if (l != "inference") left.push_back(l);
  github_.remove_issue_label(kRepo, kSeedNumber, "inference");
  auto removed = hook("issues", "d-un", label_event("unlabeled", "inference", "alice", left));
  ASSERT_EQ(removed.status, 200u) << removed.body;
  left.push_back("module: dynamo");
  ASSERT_EQ(hook("issues", "d-add", label_event("labeled", "module: dynamo", "alice", left)).status, 200u);
  left.push_back("skipped");
  ASSERT_EQ(hook("issues", "d-skip", label_event("labeled", "skipped", "alice", left)).status, 200u);

  const auto answer = json::parse(http_call(port(), "GET", "/api/v1/issues/labels").body);
  std::map<std::string, json> rows;
  for (const auto& row : answer["labels"]) rows[row["label"].get<std::string>()] = row;
  ASSERT_EQ(rows.size(), kSeedLabels.size() + 1) << answer.dump(2);
  for (const auto& l : kSeedLabels) {
    EXPECT_EQ(rows[l]["repo"], kRepo);
    EXPECT_EQ(rows[l]["kept"], l == "inference" ? 0 : 1) << l;
    EXPECT_EQ(rows[l]["removed"], l == "inference" ? 1 : 0) << l;
    EXPECT_EQ(rows[l]["added"], 0) << l;
  }
  EXPECT_EQ(rows["module: dynamo"]["added"], 1);
  EXPECT_EQ(rows["module: dynamo"]["axis"], "module");
  EXPECT_TRUE(rows["module: dynamo"]["precision_kept"].is_null());
  // Suggested-then-added when the labeler's stored answer suggested it.
  const auto issue = json::parse(http_call(port(), "GET", "/api/v1/issues").body)["issues"][0];
  bool suggested = false;
  for (const auto& s : issue["result"].value("suggested", json::array())) suggested |= s["value"] == "module: dynamo";
  EXPECT_EQ(rows["module: dynamo"]["suggested_then_added"], suggested ? 1 : 0);
  EXPECT_EQ(answer["totals"]["applied"], 6);
  EXPECT_EQ(answer["totals"]["kept"], 5);
  EXPECT_EQ(answer["totals"]["removed"], 1);
  EXPECT_EQ(answer["totals"]["added"], 1);

  const std::string metrics = http_call(port(), "GET", "/metrics").body;
  for (const std::string line :
       {R"(perftriage_bot_labels{label="inference",outcome="removed",repo="intel/torch-xpu-ops"} 1)",
        R"(perftriage_bot_labels{label="module: dynamo",outcome="added",repo="intel/torch-xpu-ops"} 1)",
        R"(perftriage_bot_labels{label="performance",outcome="kept",repo="intel/torch-xpu-ops"} 1)"}) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line;
  }
  EXPECT_EQ(metrics.find(R"(label="skipped")"), std::string::npos);
}

TEST_F(BotE2E, KilledWithAnActionInTheOutboxItHappensOnceAfterRestart) {
  // The comment is posted but the answer never comes; the server dies before it can know.
  github_.set_hang_ms(5000);
  github_.fail_next("POST", "/issues/3761/comments$", Fault::apply_then_hang);
  start();
  ASSERT_EQ(hook("issues", "d-1", issue_payload("opened", "alice")).status, 202u);
  ASSERT_TRUE(
      wait_until([&] { return !github_.requests("POST", "/issues/3761/comments$").empty(); }, milliseconds(10000)));
  server_->stop(SIGKILL);
  ASSERT_EQ(comments().size(), 1u);

  start();
  ASSERT_TRUE(drain(port()));
  EXPECT_EQ(comments().size(), 1u);  // found by its marker and edited, not posted again
  EXPECT_EQ(github_.requests("POST", "/issues/3761/comments$").size(), 1u);
  EXPECT_EQ(github_.requests("PATCH", "/issues/comments/").size(), 1u);
  EXPECT_EQ(sorted(github_.issue_labels(kRepo, kSeedNumber)), kSeedLabels);
  EXPECT_EQ(outbox(port(), "sent")["actions"].size(), 8u);
}

TEST_F(BotE2E, DryRunSendsNothingAndShowsTheActions) {
  start(false);
  auto r = hook("issues", "d-1", issue_payload("opened", "alice"));
  ASSERT_EQ(r.status, 202u);
  EXPECT_EQ(json::parse(r.body)["dry_run"], true);
  auto dry = outbox(port(), "dry_run");
  EXPECT_EQ(dry["actions"].size(), 8u);
  EXPECT_EQ(dry["counts"]["pending"], 0);
  EXPECT_EQ(dry["dry_run"], true);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_TRUE(github_.requests().empty());
}

TEST_F(BotE2E, ServerErrorIsRetriedThenSucceeds) {
  github_.fail_next("POST", "/issues/3761/labels$", Fault::error500);
  start();
  open_seed_issue();
  EXPECT_EQ(github_.requests("POST", "/issues/3761/labels$").size(), 2u);
  EXPECT_EQ(sorted(github_.issue_labels(kRepo, kSeedNumber)), kSeedLabels);
  const auto all = outbox(port());
  for (const auto& a : all["actions"]) {
    EXPECT_EQ(a["state"], "sent");
    if (a["kind"] == "add_labels") {
      EXPECT_EQ(a["attempts"], 2);
    }
  }
}

TEST_F(BotE2E, RetryAfterIsHonoured) {
  github_.fail_next("POST", "/issues/3761/comments$", Fault::retry_after_429);
  start();
  open_seed_issue();
  auto posts = github_.requests("POST", "/issues/3761/comments$");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_GE(posts[1].at - posts[0].at, milliseconds(950));
  EXPECT_EQ(comments().size(), 1u);
}

TEST_F(BotE2E, PrimaryRateLimitWaitsForTheReset) {
  github_.fail_next("POST", "/repos/intel/torch-xpu-ops/labels$", Fault::rate_limit_403);
  start();
  open_seed_issue();
  auto mutations = github_.requests();
  ASSERT_GE(mutations.size(), 2u);
  // Nothing at all is sent until x-ratelimit-reset (1-2 s ahead, whole seconds).
  EXPECT_GE(mutations[1].at - mutations[0].at, milliseconds(900));
  EXPECT_EQ(github_.repo_labels(kRepo).size(), 6u);
}

TEST_F(BotE2E, AHangingRequestTimesOutAndIsRetried) {
  github_.set_hang_ms(3000);
  github_.fail_next("POST", "/issues/3761/labels$", Fault::hang);
  start();
  open_seed_issue();
  auto posts = github_.requests("POST", "/issues/3761/labels$");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_GE(posts[1].at - posts[0].at, milliseconds(550));  // the client gave up after its 600 ms timeout
  EXPECT_EQ(sorted(github_.issue_labels(kRepo, kSeedNumber)), kSeedLabels);
}

TEST_F(BotE2E, GivesUpVisiblyAfterMaxAttempts) {
  github_.fail_next("POST", "/issues/3761/comments$", Fault::error500, 100);
  start();
  open_seed_issue();
  EXPECT_EQ(github_.requests("POST", "/issues/3761/comments$").size(), 3u);
  auto failed = outbox(port(), "failed");
  ASSERT_EQ(failed["actions"].size(), 1u);
  const auto& a = failed["actions"][0];
  EXPECT_EQ(a["kind"], "upsert_comment");
  EXPECT_EQ(a["attempts"], 3);
  EXPECT_NE(a["last_error"].get<std::string>().find("gave up after 3 attempts: HTTP 500"), std::string::npos)
      << a.dump();
  EXPECT_EQ(failed["counts"]["sent"], 7);
}

TEST_F(BotE2E, TrackingIssueIsOpenedOnceThenUpdated) {
  start();
  const json report{{"repo", kRepo},
                    {"platform", "BMG"},
                    {"release", "2.12"},
                    {"kind", "slow"},
                    {"title", "[BMG] 2.12 slow cases"},
                    {"body", "| suite | model |"}};
  auto first = http_call(port(), "POST", "/api/v1/outbox/tracking-issue", "application/json", report.dump());
  ASSERT_EQ(first.status, 202u) << first.body;
  ASSERT_TRUE(drain(port()));
  auto second_report = report;
  second_report["body"] = "| suite | model | speedup |";
  ASSERT_EQ(http_call(port(), "POST", "/api/v1/outbox/tracking-issue", "application/json", second_report.dump()).status,
            202u);
  ASSERT_TRUE(drain(port()));
  auto issues = github_.issues(kRepo);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues.begin()->second["body"], "| suite | model | speedup |");
  EXPECT_EQ(github_.requests("POST", "/repos/intel/torch-xpu-ops/issues$").size(), 1u);
  EXPECT_EQ(github_.requests("PATCH", "/repos/intel/torch-xpu-ops/issues/100$").size(), 1u);
}

TEST_F(BotE2E, OutboxRefusesAnUnknownState) {
  start();
  auto r = http_call(port(), "GET", "/api/v1/outbox?state=done");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "bad_state");
}

}  // namespace
}  // namespace perftriage::testing
