// The pure pieces of the tracker sync (server/bot/tracker_sync.hpp): --since, the link header, the caps, a page.
#include <gtest/gtest.h>

#include "server/bot/tracker_sync.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

TEST(TrackerSync, SinceIsADateOrAUtcTime) {
  EXPECT_EQ(*normalize_since(""), "");
  EXPECT_EQ(*normalize_since("2024-05-01"), "2024-05-01T00:00:00Z");
  EXPECT_EQ(*normalize_since("2024-05-01T12:34:56Z"), "2024-05-01T12:34:56Z");
  for (const char* bad : {"yesterday", "2024-13-01", "2024-05-01T12:34:56+02:00", "2024-5-1", "2024-05-01T25:00:00Z",
                          "2024-05-01 12:34:56Z"}) {
    auto r = normalize_since(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, "bad_since");
  }
}

TEST(TrackerSync, LinkHeaderNext) {
  EXPECT_FALSE(link_has_next("").has_value());
  EXPECT_TRUE(*link_has_next(
      R"(<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last")"));
  EXPECT_FALSE(*link_has_next(
      R"(<https://api.github.com/x?page=4>; rel="prev", <https://api.github.com/x?page=1>; rel="first")"));
  EXPECT_TRUE(*link_has_next(R"(<https://h/x?page=2>; rel="last next")"));
  EXPECT_TRUE(*link_has_next("<https://h/x?page=2>; rel=next"));
  EXPECT_FALSE(*link_has_next(R"(<https://h/x?next=1>; rel="nextish")"));
}

TEST(TrackerSync, CutsAtACharacterBoundary) {
  bool cut = false;
  EXPECT_EQ(cut_utf8("abc", 3, 3, cut), "abc");
  EXPECT_FALSE(cut);
  EXPECT_EQ(cut_utf8("aéb", 10, 2, cut), "a");  // é is two bytes: not split
  EXPECT_TRUE(cut);
  cut = false;
  EXPECT_EQ(cut_utf8("ééé", 2, 100, cut), "éé");
  EXPECT_TRUE(cut);
  cut = false;
  EXPECT_EQ(cut_utf8("", 0, 0, cut), "");
  EXPECT_FALSE(cut);
}

TEST(TrackerSync, APageKeepsIssuesOnly) {
  const json items = json::parse(R"([
    {"number": 1, "title": "t", "body": null, "state": "closed", "updated_at": "2024-01-01T00:00:02Z",
     "labels": [{"name": "a"}, "b", {"color": "x"}, 3]},
    {"number": 2, "title": "pr", "pull_request": {}, "updated_at": "2024-01-01T00:00:09Z"},
    {"number": "3", "title": "no number"},
    {"number": 4, "title": "odd state", "state": "merged", "updated_at": "not a time"},
    "garbage"
  ])");
  const auto page = parse_issue_page(items, "o/r");
  ASSERT_EQ(page.issues.size(), 2u);
  EXPECT_EQ(page.pull_requests, 1);
  EXPECT_EQ(page.invalid, 2);
  EXPECT_EQ(page.newest_updated_at, "2024-01-01T00:00:09Z");  // the pull request's counts for the cursor
  EXPECT_EQ(page.issues[0].repo, "o/r");
  EXPECT_EQ(page.issues[0].body, "");
  EXPECT_EQ(page.issues[0].state, "closed");
  EXPECT_EQ(page.issues[0].labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(page.issues[1].state, "open");
  EXPECT_EQ(page.issues[1].updated_at, "not a time");
}

TEST(TrackerSync, ABadRepositoryIsRefusedBeforeAnyRequest) {
  GitHubClientConfig config;
  config.api_base = "http://127.0.0.1:1";
  GitHubClient client(config);
  const auto r = client.list_issues("a/b/milestones?x=", "", 1);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.transport_error.find("not a GitHub repository"), std::string::npos);
}

}  // namespace
}  // namespace perftriage::server
