// End-to-end: a CI upload that names its commit, repository and pull request gets the verdict of its comparison on
// GitHub: a check run (App mode), or a commit status (token mode, or an App without checks: write), and one
// pull-request comment edited by each later upload. The fake GitHub records what arrives.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "tests/e2e/bot/bot_support.hpp"
#include "tests/e2e/bot/fake_github.hpp"
#include "tests/support/rsa_key.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;

constexpr const char* kPublicUrl = "https://perf.example.com";
constexpr const char* kHeader = "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio\n";

class CheckE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = make_rsa_key();
    write_file(dir_.path() / "app.pem", key_.private_pem);
    write_file(dir_.path() / "token", std::string("ghp_test_token\n"));
    write_file(dir_.path() / "perftriage.toml", std::string("[server]\npublic_url = \"") + kPublicUrl +
                                                    "\"\n[[github.repos]]\nrepo = \"" + kRepo + "\"\nchecks = true\n");
    db_ = testing_support::e2e_db((dir_.path() / "db.sqlite").string());
  }
  void TearDown() override { server_.reset(); }  // before the directory goes
  enum class Mode { app, token, dry_run };
  void start(Mode mode) {
    std::vector<std::string> args{"--db",
                                  db_,
                                  "--config",
                                  (dir_.path() / "perftriage.toml").string(),
                                  "--github-api",
                                  github_.base_url(),
                                  "--github-min-interval-ms",
                                  "20",
                                  "--github-backoff-ms",
                                  "100"};
    if (mode == Mode::app) {
      github_.enable_app("4242", key_.public_pem);
      github_.install(kRepo, 77);
      args.insert(args.end(),
                  {"--github-app-id", "4242", "--github-private-key-file", (dir_.path() / "app.pem").string()});
    } else if (mode == Mode::token) {
      github_.enable_app("", "");  // the fake takes the token as GitHub would (no App checks)
      args.insert(args.end(), {"--github-token-file", (dir_.path() / "token").string()});
    }
    server_ = std::make_unique<ServerProcess>(PERFTRIAGE_BINARY, args);
  }
  // One run of two cases on BMG: GPT2 at `gpt2_speedup`, T5 steady at 1.3.
  HttpReply upload(const std::string& run, const std::string& day, const std::string& gpt2_speedup,
                   const std::string& check_query) {
    // Eager stays at 12 ms: the compiled latency moves with the speedup, as when inductor's code changes.
    const std::string compiled = std::to_string(12.0 / std::stod(gpt2_speedup));
    const std::string csv = std::string(kHeader) + "xpu,GPT2,8," + gpt2_speedup + "," + compiled + ",40.0,1.5\n" +
                            "xpu,T5Small,8,1.300000,10.0,40.0,1.5\n";
    return http_call(server_->port(), "POST",
                     "/api/v1/uploads?run=" + run + "&platform=BMG&created_at=2026-03-0" + day +
                         "T00:00:00Z&suite=huggingface&dtype=float16&mode=inference&path=perf.csv" + check_query,
                     "text/csv", csv);
  }
  json check_of(const HttpReply& r) {
    EXPECT_EQ(r.status, 201u) << r.body;
    return json::parse(r.body).value("check", json());
  }

  TempDir dir_{"perftriage-check"};
  RsaKeyPair key_;
  std::string db_;
  FakeGitHub github_;
  std::unique_ptr<ServerProcess> server_;
};

std::string repo_query(const std::string& sha, const std::string& pr = "") {
  return std::string("&repo=") + kRepo + "&commit=" + sha + (pr.empty() ? "" : "&pr=" + pr);
}

TEST_F(CheckE2E, APullRequestThatRegressesGetsAFailingCheckRunAndOneCommentEditedByTheNextUpload) {
  start(Mode::app);
  auto first = check_of(upload("bmg-1", "1", "1.500000", repo_query("aaaaaaa")));
  EXPECT_EQ(first["queued"], true) << first;
  EXPECT_EQ(first["conclusion"], "neutral");  // the platform's first run: nothing to compare with
  auto second = check_of(upload("bmg-2", "2", "0.800000", repo_query("bbbbbbb", "12")));
  EXPECT_EQ(second["conclusion"], "failure") << second;
  EXPECT_EQ(second["actions"], 2);  // the check and the comment
  EXPECT_EQ(second["details_url"], std::string(kPublicUrl) + "/#/compare?base=bmg-1&target=bmg-2");
  ASSERT_TRUE(drain(server_->port())) << outbox(server_->port()).dump(2);

  const auto runs = github_.check_runs(kRepo);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["conclusion"], "neutral");
  EXPECT_EQ(runs[0]["name"], "perftriage / BMG");  // one check per platform, with or without a baseline
  const auto& failing = runs[1];
  EXPECT_EQ(failing["head_sha"], "bbbbbbb");
  EXPECT_EQ(failing["name"], "perftriage / BMG");
  EXPECT_EQ(failing["status"], "completed");
  EXPECT_EQ(failing["conclusion"], "failure");
  EXPECT_EQ(failing["details_url"], second["details_url"]);
  const std::string summary = failing["output"]["summary"];
  EXPECT_EQ(failing["output"]["title"], "1 regression, 0 newly failing cases, 1 newly slower than eager against bmg-1");
  // GPT2 in both tables (it regressed, and fell below eager); T5Small in neither.
  EXPECT_NE(summary.find("### Regressions and newly failing cases (1)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("### Newly slower than eager (1)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("| huggingface | float16 | inference | GPT2 | 8 | 1.500000 | 0.800000 |"), std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("T5Small"), std::string::npos) << summary;
  EXPECT_TRUE(github_.statuses(kRepo).empty());

  auto comments = github_.comments(kRepo, 12);
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_EQ(comments[0].body.rfind("<!-- perftriage:upload BMG -->\n", 0), 0u) << comments[0].body;
  EXPECT_NE(comments[0].body.find("bbbbbbb"), std::string::npos);

  // The fix is pushed: the next upload of the pull request passes, and edits the same comment.
  auto third = check_of(upload("bmg-3", "3", "1.500000", repo_query("ccccccc", "12")));
  EXPECT_EQ(third["conclusion"], "success") << third;
  ASSERT_TRUE(drain(server_->port()));
  comments = github_.comments(kRepo, 12);
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_NE(comments[0].body.find("No regression against bmg-2"), std::string::npos) << comments[0].body;
  EXPECT_NE(comments[0].body.find("ccccccc"), std::string::npos);
  EXPECT_EQ(github_.requests("PATCH", "^/repos/intel/torch-xpu-ops/issues/comments/").size(), 1u);
  EXPECT_EQ(github_.check_runs(kRepo).back()["conclusion"], "success");
}

TEST_F(CheckE2E, AnAppWithoutChecksPermissionAndATokenPostACommitStatusInstead) {
  github_.set_checks_permission(false);
  start(Mode::app);
  (void)check_of(upload("bmg-1", "1", "1.500000", ""));
  EXPECT_EQ(check_of(upload("bmg-2", "2", "0.800000", repo_query("bbbbbbb")))["conclusion"], "failure");
  ASSERT_TRUE(drain(server_->port())) << outbox(server_->port()).dump(2);
  auto statuses = github_.statuses(kRepo);
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0]["sha"], "bbbbbbb");
  EXPECT_EQ(statuses[0]["state"], "failure");
  EXPECT_EQ(statuses[0]["context"], "perftriage / BMG");
  EXPECT_EQ(statuses[0]["target_url"], std::string(kPublicUrl) + "/#/compare?base=bmg-1&target=bmg-2");
  EXPECT_LE(statuses[0]["description"].get<std::string>().size(), 140u);
  EXPECT_TRUE(github_.check_runs(kRepo).empty());

  const auto tried = github_.requests("POST", "/check-runs$").size();  // the App tried, and was refused (403)
  EXPECT_EQ(tried, 1u);
  server_.reset();  // token mode: a personal token cannot write check runs, so a status goes straight away
  start(Mode::token);
  EXPECT_EQ(check_of(upload("bmg-3", "3", "1.500000", repo_query("ccccccc")))["conclusion"], "success");
  ASSERT_TRUE(drain(server_->port()));
  statuses = github_.statuses(kRepo);
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[1]["state"], "success");
  EXPECT_EQ(github_.requests("POST", "/check-runs$").size(), tried);
}

TEST_F(CheckE2E, WhatIsNotCheckedIsSaidAndABadRequestStoresNothing) {
  start(Mode::dry_run);
  // A repository not configured for checks: stored, and the answer says why no check was queued.
  auto other = check_of(upload("bmg-1", "1", "1.500000", "&repo=pytorch/pytorch&commit=aaaaaaa"));
  EXPECT_EQ(other["queued"], false);
  EXPECT_EQ(other["reason"],
            "repository pytorch/pytorch is not configured for checks ([[github.repos]] checks = true)");
  // A repository without a commit, a bad pr: 400 naming the field, and no run stored.
  for (const std::string& bad :
       {std::string("&repo=") + kRepo, repo_query("aaaaaaa", "twelve"), std::string("&repo=../x&commit=aaaaaaa")}) {
    const auto r = upload("bmg-bad", "2", "1.500000", bad);
    EXPECT_EQ(r.status, 400u) << bad << " " << r.body;
  }
  EXPECT_EQ(http_call(server_->port(), "GET", "/api/v1/runs/bmg-bad").status, 404u);
  // Dry run: the check is computed and recorded, nothing is sent.
  auto dry = check_of(upload("bmg-2", "2", "0.800000", repo_query("bbbbbbb")));
  EXPECT_EQ(dry["dry_run"], true);
  EXPECT_EQ(dry["conclusion"], "failure");
  const auto actions = outbox(server_->port(), "dry_run")["actions"];
  ASSERT_EQ(actions.size(), 1u) << actions;
  EXPECT_EQ(actions[0]["kind"], "commit_check");
  EXPECT_NE(actions[0]["payload"]["summary"].get<std::string>().find("GPT2"), std::string::npos);
  EXPECT_TRUE(github_.requests().empty());
}

}  // namespace
}  // namespace perftriage::testing
