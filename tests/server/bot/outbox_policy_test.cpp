// Retry policy of the outbox worker and the comment-marker search: pure functions over GitHub's answers.
#include <gtest/gtest.h>

#include "server/bot/github_client.hpp"
#include "server/bot/outbox_worker.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

GitHubResponse answer(long status, std::map<std::string, std::string> headers = {}, std::string body = {}) {
  GitHubResponse r;
  r.status = status;
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

RetryPolicy policy() {
  RetryPolicy p;
  p.max_attempts = 5;
  p.base_ms = 1000;
  p.cap_ms = 10000;
  p.secondary_min_ms = 60000;
  return p;
}

constexpr std::int64_t kNow = 1'700'000'000'000;

TEST(Backoff, DoublesFromTheBase) {
  EXPECT_EQ(backoff_ms(1, policy()), 1000);
  EXPECT_EQ(backoff_ms(2, policy()), 2000);
  EXPECT_EQ(backoff_ms(3, policy()), 4000);
  EXPECT_EQ(backoff_ms(4, policy()), 8000);
}

TEST(Backoff, IsCapped) {
  EXPECT_EQ(backoff_ms(5, policy()), 10000);
  EXPECT_EQ(backoff_ms(1000, policy()), 10000);  // no overflow
}

TEST(Decide, TwoHundredsAreSent) {
  EXPECT_EQ(decide(answer(200), 1, kNow, policy()).kind, Outcome::Kind::sent);
  EXPECT_EQ(decide(answer(201), 1, kNow, policy()).kind, Outcome::Kind::sent);
}

TEST(Decide, ServerErrorsRetryWithBackoff) {
  auto o = decide(answer(502, {}, R"({"message":"Bad Gateway"})"), 3, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 4000);
  EXPECT_FALSE(o.pause_all);
  EXPECT_EQ(o.error, "HTTP 502: Bad Gateway");
}

TEST(Decide, TimeoutsRetry) {
  auto r = answer(0);
  r.transport_error = "Timeout was reached";
  auto o = decide(r, 1, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 1000);
  EXPECT_EQ(o.error, "Timeout was reached");
}

TEST(Decide, GivesUpAfterMaxAttempts) {
  auto o = decide(answer(500), 5, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::failed);
  EXPECT_NE(o.error.find("gave up after 5 attempts"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("HTTP 500"), std::string::npos) << o.error;
}

TEST(Decide, PrimaryRateLimitWaitsUntilReset) {
  const auto reset = std::to_string(kNow / 1000 + 30);
  auto o = decide(answer(403, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", reset}}), 1, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 30000);
  EXPECT_TRUE(o.pause_all);
}

TEST(Decide, RateLimitWithAResetInThePastRetriesNow) {
  auto o = decide(answer(429, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1"}}), 1, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 0);
}

TEST(Decide, RetryAfterIsHonoured) {
  auto o = decide(answer(429, {{"retry-after", "7"}}), 1, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 7000);
  EXPECT_TRUE(o.pause_all);
}

TEST(Decide, RetryAfterOnAServerError) {
  auto o = decide(answer(503, {{"retry-after", "3"}}), 1, kNow, policy());
  EXPECT_EQ(o.delay_ms, 3000);
}

TEST(Decide, SecondaryLimitWithoutHeadersWaitsAMinute) {
  auto o = decide(answer(403, {}, R"({"message":"You have exceeded a secondary rate limit."})"), 1, kNow, policy());
  EXPECT_EQ(o.kind, Outcome::Kind::retry);
  EXPECT_EQ(o.delay_ms, 60000);
  EXPECT_TRUE(o.pause_all);
  EXPECT_EQ(decide(answer(429), 1, kNow, policy()).delay_ms, 60000);
}

TEST(Decide, ForbiddenIsFinal) {
  auto o = decide(answer(403, {{"x-ratelimit-remaining", "4000"}}, R"({"message":"Resource not accessible"})"), 1, kNow,
                  policy());
  EXPECT_EQ(o.kind, Outcome::Kind::failed);
  EXPECT_EQ(o.error, "HTTP 403: Resource not accessible");
}

TEST(Decide, OtherClientErrorsAreFinal) {
  EXPECT_EQ(decide(answer(404), 1, kNow, policy()).kind, Outcome::Kind::failed);
  EXPECT_EQ(decide(answer(422, {}, R"({"message":"Validation Failed"})"), 1, kNow, policy()).kind,
            Outcome::Kind::failed);
  EXPECT_EQ(decide(answer(401), 1, kNow, policy()).kind, Outcome::Kind::failed);
}

TEST(AlreadyExists, RecognisesGitHubsValidationError) {
  EXPECT_TRUE(is_already_exists(
      answer(422, {}, R"({"message":"Validation Failed","errors":[{"resource":"Label","code":"already_exists"}]})")));
}

TEST(AlreadyExists, OtherValidationErrorsAreNot) {
  EXPECT_FALSE(is_already_exists(answer(422, {}, R"({"errors":[{"code":"invalid","field":"color"}]})")));
  EXPECT_FALSE(is_already_exists(answer(422, {}, "not json")));
  EXPECT_FALSE(is_already_exists(answer(200, {}, R"({"errors":[{"code":"already_exists"}]})")));
}

TEST(FindMarkedComment, FindsTheBotsComment) {
  auto comments = json::parse(R"([
    {"id": 1, "body": "I see this too <!-- perftriage:label -->"},
    {"id": 2, "body": "\n<!-- perftriage:label -->\n<details>...</details>"},
    {"id": 3, "body": "<!-- perftriage:label -->"}])");
  EXPECT_EQ(find_marked_comment(comments, "<!-- perftriage:label -->"), 2);
}

TEST(FindMarkedComment, NoneWithoutTheMarker) {
  auto comments = json::parse(R"([{"id": 1, "body": "hello"}, {"id": 2, "body": null}, {"body": "<!-- m -->"}])");
  EXPECT_EQ(find_marked_comment(comments, "<!-- m -->"), std::nullopt);
}

TEST(FindMarkedIssue, TheBotsIssueWithTheFingerprintsMarker) {
  const std::string marker = "<!-- perftriage:tracking intel/torch-xpu-ops|BMG|2.12|slow -->";
  auto issues = json::parse(R"([
    {"number": 7, "body": "quoting it: <!-- perftriage:tracking intel/torch-xpu-ops|BMG|2.12|slow -->",
     "user": {"login": "alice"}},
    {"number": 8, "body": "<!-- perftriage:tracking intel/torch-xpu-ops|BMG|2.12|slow -->", "user": {"login":
     "perftriage[bot]"}, "pull_request": {"url": "x"}},
    {"number": 9, "body": "## Summary\n<!-- perftriage:tracking intel/torch-xpu-ops|BMG|2.12|regressions -->\n",
     "user": {"login": "perftriage[bot]"}},
    {"number": 10, "body": null, "user": {"login": "perftriage[bot]"}},
    {"number": 11, "body": "## Summary\n<!-- perftriage:tracking intel/torch-xpu-ops|BMG|2.12|slow -->\n",
     "user": {"login": "PerfTriage[bot]"}}])");
  // Not someone else's issue quoting the marker, not a pull request, not another fingerprint's issue.
  EXPECT_EQ(find_marked_issue(issues, marker, "perftriage[bot]"), 11);
  EXPECT_EQ(find_marked_issue(issues, marker, "someone-else"), std::nullopt);
  EXPECT_EQ(find_marked_issue(json::parse(R"({"message":"Not Found"})"), marker, "perftriage[bot]"), std::nullopt);
}

TEST(FindMarkedComment, NoneForANonArray) {
  EXPECT_EQ(find_marked_comment(json::parse(R"({"message":"Not Found"})"), "<!-- m -->"), std::nullopt);
}

}  // namespace
}  // namespace perftriage::server
