// The webhook's pure half: signatures, payloads, what each event means, and the actions that label an issue.
#include <gtest/gtest.h>

#include "analyzers/labeler/labeler.hpp"
#include "server/bot/webhook.hpp"
#include "tests/support/files.hpp"

namespace perftriage::server::webhook {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;

TEST(Hmac, Rfc4231TestCase2) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Hmac, GitHubDocumentationExample) {
  EXPECT_TRUE(verify_signature("It's a Secret to Everybody", "Hello, World!",
                               "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"));
}

TEST(VerifySignature, AcceptsTheRightSignatureInEitherCase) {
  const std::string body = R"({"action":"opened"})";
  const std::string hex = hmac_sha256_hex("k", body);
  EXPECT_TRUE(verify_signature("k", body, "sha256=" + hex));
  std::string upper = hex;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(verify_signature("k", body, "sha256=" + upper));
}

TEST(VerifySignature, RefusesAnotherSecret) {
  const std::string body = "{}";
  EXPECT_FALSE(verify_signature("k", body, "sha256=" + hmac_sha256_hex("other", body)));
}

TEST(VerifySignature, RefusesATamperedBody) {
  EXPECT_FALSE(verify_signature("k", "{ }", "sha256=" + hmac_sha256_hex("k", "{}")));
}

TEST(VerifySignature, RefusesAMissingHeader) { EXPECT_FALSE(verify_signature("k", "{}", "")); }

TEST(VerifySignature, RefusesTheSha1HeaderFormat) {
  EXPECT_FALSE(verify_signature("k", "{}", "sha1=" + hmac_sha256_hex("k", "{}")));
}

TEST(VerifySignature, RefusesATruncatedSignature) {
  EXPECT_FALSE(verify_signature("k", "{}", "sha256=" + hmac_sha256_hex("k", "{}").substr(0, 63)));
}

TEST(VerifySignature, RefusesEverythingWithoutASecret) {
  EXPECT_FALSE(verify_signature("", "{}", "sha256=" + hmac_sha256_hex("", "{}")));
}

json issue_payload(const std::string& action, const std::string& sender) {
  return {{"action", action},
          {"issue", {{"number", 7}, {"title", "T"}, {"body", nullptr}, {"labels", {{{"name", "hw: BMG"}}}}}},
          {"repository", {{"full_name", "o/r"}}},
          {"sender", {{"login", sender}}}};
}

TEST(ParseEvent, ReadsAnIssuesEvent) {
  auto e = parse_event("issues", issue_payload("opened", "alice"));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->repo, "o/r");
  EXPECT_EQ(e->number, 7);
  EXPECT_EQ(e->title, "T");
  EXPECT_EQ(e->body, "");  // null body
  EXPECT_EQ(e->labels, std::vector<std::string>{"hw: BMG"});
  EXPECT_EQ(e->sender, "alice");
  EXPECT_FALSE(e->pull_request);
}

TEST(ParseEvent, RefusesAnIssueEventWithoutNumber) {
  auto p = issue_payload("opened", "alice");
  p["issue"].erase("number");
  auto e = parse_event("issues", p);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, "bad_payload");
}

TEST(ParseEvent, RefusesAnIssueEventWithoutRepository) {
  auto p = issue_payload("opened", "alice");
  p.erase("repository");
  EXPECT_FALSE(parse_event("issues", p).ok());
}

void expect_refused(const json& payload, const std::string& code, const std::string& field, const std::string& what,
                    const std::string& event = "issues") {
  auto e = parse_event(event, payload);
  ASSERT_FALSE(e.ok()) << what;
  EXPECT_EQ(e.error().code, code) << what;
  EXPECT_EQ(e.error().column, field) << what;
  EXPECT_EQ(e.error().kind, ErrorKind::invalid_input) << what;
}

TEST(ParseEvent, RefusesAnIssueNumberGitHubNeverAssigns) {
  const std::vector<std::pair<json, std::string>> bad = {
      {-1, "-1"},
      {0, "0"},
      {1.5, "1.5"},
      {7.0, "7.0 (a float)"},
      {"7", "\"7\" (a string)"},
      {nullptr, "null"},
      {json::parse("9223372036854775808"), "2^63"},
      {json::parse("18446744073709551615"), "2^64-1"},
      {json::parse("1180591620717411303424"), "2^70"},
  };
  for (const auto& [number, what] : bad) {
    auto p = issue_payload("opened", "alice");
    p["issue"]["number"] = number;
    expect_refused(p, "bad_issue_number", "issue.number", what);
    expect_refused(p, "bad_issue_number", "issue.number", what + " in a comment", "issue_comment");
  }
}

TEST(ParseEvent, AcceptsEveryPositiveInt64IssueNumber) {
  for (const auto& number : {json(1), json::parse("9223372036854775807")}) {
    auto p = issue_payload("opened", "alice");
    p["issue"]["number"] = number;
    auto e = parse_event("issues", p);
    ASSERT_TRUE(e.ok()) << number << ": " << e.error().message;
    EXPECT_EQ(e->number, number.get<std::int64_t>());
  }
}

TEST(ParseEvent, RefusesARepositoryNameOutsideGitHubsGrammar) {
  for (const char* name :
       {"../../evil", "a/b/c", "a", "-/x", "a/..", "a/b/milestones?x=", "a/b?x=1", "a b/c", "/b", "a/"}) {
    auto p = issue_payload("opened", "alice");
    p["repository"]["full_name"] = name;
    expect_refused(p, "bad_repository", "repository.full_name", name);
  }
}

TEST(ParseEvent, RefusesLabelNamesLongerThanGitHubs) {
  auto p = issue_payload("labeled", "alice");
  p["label"] = {{"name", std::string(51, 'l')}};
  expect_refused(p, "bad_label", "label.name", "a 51-character label.name");
  p["label"] = {{"name", std::string(50, 'l')}};
  EXPECT_TRUE(parse_event("issues", p).ok()) << "50 characters is GitHub's limit";
  p["issue"]["labels"] = {{{"name", "ok"}}, {{"name", std::string(51, 'l')}}};
  expect_refused(p, "bad_label", "issue.labels", "a 51-character label on the issue");
}

TEST(ParseEvent, EventsTheBotDoesNotActOnNeedNoRepository) {
  EXPECT_TRUE(parse_event("star", {{"action", "created"}}).ok());
}

// The App's own events: the installation's id and the repositories it gained or lost, each name checked.
TEST(ParseEvent, InstallationEventsNameTheirInstallationAndRepositories) {
  const json repos = json::array({{{"full_name", "intel/torch-xpu-ops"}}, {{"full_name", "pytorch/pytorch"}}});
  auto created =
      parse_event("installation", {{"action", "created"}, {"installation", {{"id", 77}}}, {"repositories", repos}});
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->installation, 77);
  EXPECT_EQ(created->repos_added, (std::vector<std::string>{"intel/torch-xpu-ops", "pytorch/pytorch"}));
  EXPECT_TRUE(created->repos_removed.empty());
  EXPECT_EQ(classify(*created, "perftriage[bot]"), Disposition::record_installation);
  auto suspended =
      parse_event("installation", {{"action", "suspend"}, {"installation", {{"id", 77}}}, {"repositories", repos}});
  ASSERT_TRUE(suspended.ok());
  EXPECT_EQ(suspended->repos_removed.size(), 2u);
  EXPECT_TRUE(suspended->repos_added.empty());
  auto removed = parse_event("installation_repositories", {{"action", "removed"},
                                                           {"installation", {{"id", 77}}},
                                                           {"repositories_added", json::array()},
                                                           {"repositories_removed", repos}});
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->repos_removed.size(), 2u);

  auto no_id = parse_event("installation", {{"action", "created"}});
  ASSERT_FALSE(no_id.ok());
  EXPECT_EQ(no_id.error().code, "bad_installation");
  auto bad_repo =
      parse_event("installation_repositories", {{"action", "added"},
                                                {"installation", {{"id", 77}}},
                                                {"repositories_added", json::array({{{"full_name", "../../x"}}})}});
  ASSERT_FALSE(bad_repo.ok());
  EXPECT_EQ(bad_repo.error().code, "bad_repository");
  EXPECT_EQ(bad_repo.error().column, "repositories_added");
}

TEST(ParseEvent, RefusesANonObject) { EXPECT_FALSE(parse_event("issues", json::array()).ok()); }

TEST(ParseEvent, PingNeedsNoIssue) {
  auto e = parse_event("ping", {{"zen", "Keep it logically awesome."}});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(classify(*e, "bot"), Disposition::ping);
}

Disposition classify_payload(const std::string& event, const json& p, const std::string& bot = "perftriage[bot]") {
  auto e = parse_event(event, p);
  EXPECT_TRUE(e.ok());
  return e.ok() ? classify(*e, bot) : Disposition::ignored;
}

TEST(Classify, OpenedEditedReopenedLabel) {
  for (const char* a : {"opened", "edited", "reopened"})
    EXPECT_EQ(classify_payload("issues", issue_payload(a, "alice")), Disposition::label) << a;
}

TEST(Classify, ClosedIsIgnored) {
  EXPECT_EQ(classify_payload("issues", issue_payload("closed", "alice")), Disposition::record_closed);
}

TEST(Classify, LabeledAndUnlabeledAreRecorded) {
  auto p = issue_payload("unlabeled", "alice");
  p["label"] = {{"name", "performance"}};
  EXPECT_EQ(classify_payload("issues", p), Disposition::record_unlabeled);
  p["action"] = "labeled";
  EXPECT_EQ(classify_payload("issues", p), Disposition::record_labeled);
}

TEST(Classify, TheBotsOwnEventsAreIgnored) {
  EXPECT_EQ(classify_payload("issues", issue_payload("opened", "PerfTriage[bot]")), Disposition::ignored_self);
  auto p = issue_payload("unlabeled", "perftriage[bot]");
  p["label"] = {{"name", "performance"}};
  EXPECT_EQ(classify_payload("issues", p), Disposition::ignored_self);
}

TEST(Classify, LabelCommandRelabels) {
  auto p = issue_payload("created", "alice");
  p["comment"] = {{"body", "thanks\r\n  /label  \nbye"}};
  EXPECT_EQ(classify_payload("issue_comment", p), Disposition::label);
}

TEST(Classify, CommentWithoutCommandIsIgnored) {
  auto p = issue_payload("created", "alice");
  p["comment"] = {{"body", "please /label this"}};
  EXPECT_EQ(classify_payload("issue_comment", p), Disposition::ignored);
  p["comment"] = {{"body", "/labels"}};
  EXPECT_EQ(classify_payload("issue_comment", p), Disposition::ignored);
}

TEST(Classify, EditedCommentIsIgnored) {
  auto p = issue_payload("edited", "alice");
  p["comment"] = {{"body", "/label"}};
  EXPECT_EQ(classify_payload("issue_comment", p), Disposition::ignored);
}

TEST(Classify, PullRequestCommentIsIgnored) {
  auto p = issue_payload("created", "alice");
  p["issue"]["pull_request"] = {{"url", "x"}};
  p["comment"] = {{"body", "/label"}};
  EXPECT_EQ(classify_payload("issue_comment", p), Disposition::ignored);
}

TEST(Classify, UnknownEventIsIgnored) {
  EXPECT_EQ(classify_payload("push", {{"ref", "refs/heads/main"}}), Disposition::ignored);
}

const char* kSeedTitle = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

struct Seed {
  Event event;
  lb::Taxonomy taxonomy;
  lb::LabelResult result;
};

Seed seed(std::vector<std::string> labels = {}) {
  Seed s;
  s.event.name = "issues";
  s.event.action = "opened";
  s.event.repo = "intel/torch-xpu-ops";
  s.event.number = 3761;
  s.event.title = kSeedTitle;
  s.event.body = testing::read_bytes(testing::fixture("labeler/seed_3761_body.md"));
  s.event.labels = std::move(labels);
  s.taxonomy = *lb::load_taxonomy("torch-xpu-ops");
  s.result = lb::label_issue(to_issue_input(s.event), s.taxonomy);
  return s;
}

std::vector<std::string> kinds(const std::vector<schema::NewAction>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) out.emplace_back(schema::to_string(a.kind));
  return out;
}

TEST(PlanLabelActions, CreatesAddsAndComments) {
  auto s = seed();
  auto actions = plan_label_actions(s.event, s.result, s.taxonomy, {}, "<!-- perftriage:label -->\nhi");
  ASSERT_EQ(actions.size(), 8u);
  EXPECT_EQ(kinds(actions), (std::vector<std::string>{"create_label", "create_label", "create_label", "create_label",
                                                      "create_label", "create_label", "add_labels", "upsert_comment"}));
  auto added = actions[6].payload["labels"].get<std::vector<std::string>>();
  std::sort(added.begin(), added.end());
  EXPECT_EQ(added, (std::vector<std::string>{"dtype: bfloat16", "hw: BMG", "inference", "module: inductor",
                                             "performance", "test: e2e"}));
  for (std::size_t i = 0; i < 6; ++i) {
    const auto name = actions[i].payload["name"].get<std::string>();
    EXPECT_EQ(actions[i].payload["color"], s.taxonomy.color_for(name)) << name;
    EXPECT_EQ(actions[i].repo, "intel/torch-xpu-ops");
  }
  EXPECT_EQ(actions[7].payload["body"], "<!-- perftriage:label -->\nhi");
  EXPECT_EQ(actions[7].issue_number, 3761);
}

TEST(PlanLabelActions, SkipsLabelsAlreadyOnTheIssue) {
  auto s = seed({"hw: BMG", "Performance"});
  auto actions = plan_label_actions(s.event, s.result, s.taxonomy, {}, "c");
  ASSERT_EQ(actions.size(), 6u);
  auto added = actions[4].payload["labels"].get<std::vector<std::string>>();
  EXPECT_EQ(std::count(added.begin(), added.end(), "hw: BMG"), 0);
  EXPECT_EQ(std::count(added.begin(), added.end(), "performance"), 0);
}

TEST(PlanLabelActions, NeverReappliesALabelAHumanRemoved) {
  auto s = seed();
  auto actions = plan_label_actions(s.event, s.result, s.taxonomy, {"performance"}, "c");
  ASSERT_EQ(actions.size(), 7u);
  for (const auto& a : actions) {
    EXPECT_NE(a.payload.value("name", ""), "performance");
    if (a.kind == schema::OutboxKind::add_labels) {
      auto added = a.payload["labels"].get<std::vector<std::string>>();
      EXPECT_EQ(std::count(added.begin(), added.end(), "performance"), 0);
    }
  }
}

TEST(PlanLabelActions, OnlyTheCommentWhenEveryLabelIsThere) {
  auto s = seed({"dtype: bfloat16", "hw: BMG", "inference", "module: inductor", "performance", "test: e2e"});
  auto actions = plan_label_actions(s.event, s.result, s.taxonomy, {}, "c");
  EXPECT_EQ(kinds(actions), std::vector<std::string>{"upsert_comment"});
}

}  // namespace
}  // namespace perftriage::server::webhook
