// GitHub's grammar for the names the bot builds URLs from, and the GitHub client's refusal to send a request whose
// repository or number fails it (the defence behind the webhook's own check).
#include <gtest/gtest.h>

#include <limits>

#include "server/bot/github_client.hpp"
#include "server/bot/github_names.hpp"
#include "server/bot/outbox_worker.hpp"

namespace perftriage::server {
namespace {

TEST(GitHubNames, RepositoriesThatCouldLeaveTheirApiPathAreRefused) {
  for (const char* bad : {"../../evil", "a/b/c", "a", "-/x", "x-/y", "a/..", "a/.", "a/b/milestones?x=", "", "/",
                          "a/b%2F..", "a\\b/c", "a/b\n"}) {
    EXPECT_FALSE(is_github_repo(bad)) << bad;
  }
  for (const char* ok : {"pytorch/pytorch", "intel/torch-xpu-ops", "a/b", "a/...", "a-b-c/.x"}) {
    EXPECT_TRUE(is_github_repo(ok)) << ok;
  }
  EXPECT_TRUE(is_github_repo(std::string(39, 'o') + "/" + std::string(100, 'n')));
}

TEST(GitHubNames, NumbersArePositive) {
  EXPECT_FALSE(is_github_number(-1));
  EXPECT_FALSE(is_github_number(0));
  EXPECT_FALSE(is_github_number(std::numeric_limits<std::int64_t>::min()));
  EXPECT_TRUE(is_github_number(1));
  EXPECT_TRUE(is_github_number(std::numeric_limits<std::int64_t>::max()));
}

TEST(GitHubNames, LabelsAreOneToFiftyCharacters) {
  EXPECT_FALSE(is_github_label(""));
  EXPECT_TRUE(is_github_label(std::string(50, 'l')));
  EXPECT_FALSE(is_github_label(std::string(51, 'l')));
  std::string accented;
  for (int i = 0; i < 50; ++i) accented += "\xC3\xA9";  // 50 characters in 100 bytes: GitHub counts characters
  EXPECT_TRUE(is_github_label(accented));
  EXPECT_FALSE(is_github_label(accented + "e"));
}

// Nothing listens on the discard port of loopback: a request that were sent would fail with status 0 too, but
// without `refused`.
GitHubClient offline_client() {
  GitHubClientConfig config;
  config.api_base = "http://127.0.0.1:9";
  config.connect_timeout_ms = 500;
  config.total_timeout_ms = 1000;
  return GitHubClient(config);
}

void expect_refused(const GitHubResponse& r, const std::string& what) {
  EXPECT_TRUE(r.refused) << what;
  EXPECT_EQ(r.status, 0) << what;
  EXPECT_NE(r.transport_error.find("not sent"), std::string::npos) << what << ": " << r.transport_error;
}

TEST(GitHubClientRefuses, ABadRepositoryOrNumberIsNeverSent) {
  auto client = offline_client();
  expect_refused(client.add_labels("a/b", -1, {"x"}), "add_labels #-1");
  expect_refused(client.add_labels("a/b", 0, {"x"}), "add_labels #0");
  expect_refused(client.add_labels("../../evil", 7, {"x"}), "add_labels ../../evil");
  expect_refused(client.create_label("a/b/c", "x", "ffffff"), "create_label a/b/c");
  expect_refused(client.list_comments("a/b", -5, 1), "list_comments #-5");
  expect_refused(client.create_comment("-/x", 1, "hi"), "create_comment -/x");
  expect_refused(client.update_comment("a/b", 0, "hi"), "update_comment id 0");
  expect_refused(client.create_issue("a", {{"title", "t"}}), "create_issue a");
  expect_refused(client.update_issue("a/b", -1, {{"title", "t"}}), "update_issue #-1");
  expect_refused(client.list_issues("a/..", "", 1), "list_issues a/..");
  EXPECT_NE(client.add_labels("a/b", -1, {"x"}).transport_error.find("-1"), std::string::npos);
}

TEST(GitHubClientRefuses, AGoodOneIsSent) {
  auto client = offline_client();
  const auto r = client.add_labels("a/b", 1, {"x"});
  EXPECT_FALSE(r.refused) << r.transport_error;
  EXPECT_EQ(r.transport_error.find("not sent"), std::string::npos) << r.transport_error;
}

TEST(GitHubClientRefuses, TheWorkerFailsARefusedActionAtOnce) {
  GitHubResponse refused;
  refused.refused = true;
  refused.transport_error = "not sent: not a GitHub issue or comment number: -1";
  const auto outcome = decide(refused, 1, 0, RetryPolicy{});
  EXPECT_EQ(outcome.kind, Outcome::Kind::failed) << "retrying cannot make the name valid";
  EXPECT_NE(outcome.error.find("-1"), std::string::npos) << outcome.error;
  GitHubResponse unreachable;
  unreachable.transport_error = "Couldn't connect to server";
  EXPECT_EQ(decide(unreachable, 1, 0, RetryPolicy{}).kind, Outcome::Kind::retry) << "a network failure still retries";
}

}  // namespace
}  // namespace perftriage::server
