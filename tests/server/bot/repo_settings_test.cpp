// [[github.repos]]: which repositories the bot acts in, with which taxonomy, and what it may do there; a delivery from
// a repository the list leaves out is answered, recorded with its reason, and queues nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "analyzers/labeler/taxonomy.hpp"
#include "schema/bot_store.hpp"
#include "server/app/label_evidence.hpp"
#include "server/bot/webhook_service.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

TEST(RepoSettingsLookup, WithoutAListEveryRepositoryGetsTheGithubKeys) {
  GitHubSettings gh;
  gh.taxonomy = "pytorch";
  gh.label_layers = analyzers::labeler::Layers::gated;
  const auto r = repo_settings(gh, "Codertocat/Hello-World");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->repo, "Codertocat/Hello-World");
  EXPECT_EQ(r->taxonomy, "pytorch");
  EXPECT_EQ(r->label_layers, analyzers::labeler::Layers::gated);
  EXPECT_TRUE(r->label && r->comment && r->tracking);
}

TEST(RepoSettingsLookup, AListedRepositoryIsFoundInAnyCaseWithGithubKeysFillingItsGaps) {
  GitHubSettings gh;
  gh.label_layers = analyzers::labeler::Layers::rules;
  gh.label_model = "none";
  gh.repos.push_back({"pytorch/pytorch", "pytorch", std::nullopt, "", true, false, true});
  const auto r = repo_settings(gh, "PyTorch/PyTorch");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->taxonomy, "pytorch");
  EXPECT_EQ(r->label_layers, analyzers::labeler::Layers::rules);
  EXPECT_EQ(r->label_model, "none");  // [github]'s, where the repository names none
  EXPECT_FALSE(r->comment);
  EXPECT_FALSE(repo_settings(gh, "intel/torch-xpu-ops"));
}

std::string issue_body(const std::string& repo, std::int64_t number, const std::string& title) {
  return json{{"action", "opened"},
              {"issue",
               {{"number", number},
                {"title", title},
                {"body", "torch.compile is slower than eager"},
                {"labels", json::array()}}},
              {"repository", {{"full_name", repo}}},
              {"sender", {{"login", "alice"}}}}
      .dump();
}

class RepoDeliveries : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_.emplace(std::move(*s));
    gh_.repos.push_back({"intel/torch-xpu-ops", "torch-xpu-ops", std::nullopt, "", true, true, true});
    gh_.repos.push_back({"pytorch/pytorch", "pytorch", analyzers::labeler::Layers::rules, "none", true, false, true});
  }
  std::vector<schema::OutboxRow> outbox(const std::string& repo) {
    auto rows = schema::list_outbox(store_->db(), std::nullopt, -1);
    EXPECT_TRUE(rows.ok());
    std::vector<schema::OutboxRow> out;
    for (const auto& r : rows.ok() ? *rows : std::vector<schema::OutboxRow>{})
      if (r.repo == repo) out.push_back(r);
    return out;
  }
  static std::vector<std::string> labels_of(const std::vector<schema::OutboxRow>& rows) {
    std::vector<std::string> out;
    for (const auto& r : rows) {
      if (r.kind != schema::OutboxKind::add_labels) continue;
      for (const auto& l : r.payload.value("labels", json::array())) out.push_back(l.get<std::string>());
    }
    return out;
  }
  std::optional<schema::Store> store_;
  GitHubSettings gh_;
};

TEST_F(RepoDeliveries, AnUnlistedRepositoryIsAnsweredIgnoredAndQueuesNothing) {
  auto answer =
      receive_delivery(*store_, gh_, "d1", "issues", issue_body("Codertocat/Hello-World", 1, "[BMG] slow model"));
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status, 200u);
  EXPECT_EQ(answer->body.value("status", ""), "ignored");
  EXPECT_NE(answer->body.value("reason", "").find("Codertocat/Hello-World is not in [[github.repos]]"),
            std::string::npos);
  EXPECT_TRUE(outbox("Codertocat/Hello-World").empty());
  auto labeled = schema::labeled_issues(store_->db(), -1);
  ASSERT_TRUE(labeled.ok());
  EXPECT_TRUE(labeled->empty());
  auto done = schema::list_deliveries(store_->db(), "done", -1);
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->size(), 1u);
  EXPECT_EQ(schema::to_json((*done)[0]).value("reason", ""), answer->body.value("reason", ""));
  // Redelivered: still answered once, still nothing queued.
  auto again =
      receive_delivery(*store_, gh_, "d1", "issues", issue_body("Codertocat/Hello-World", 1, "[BMG] slow model"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->body.value("status", ""), "duplicate");
  EXPECT_TRUE(outbox("Codertocat/Hello-World").empty());
}

TEST_F(RepoDeliveries, PingIsAnsweredWhicheverRepositorySendsIt) {
  const std::string ping = json{{"zen", "Keep it logically awesome."},
                                {"hook_id", 1},
                                {"repository", {{"full_name", "Codertocat/Hello-World"}}}}
                               .dump();
  auto answer = receive_delivery(*store_, gh_, "p1", "ping", ping);
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->body.value("status", ""), "ok");
}

TEST_F(RepoDeliveries, EachRepositoryIsLabeledWithItsOwnTaxonomyAndDoesWhatItMay) {
  const std::string title = "[BMG] torch.compile inductor: ElectraForQuestionAnswering bf16 slower than eager";
  for (const auto& [id, repo] : {std::pair{"x1", "intel/torch-xpu-ops"}, std::pair{"p1", "pytorch/pytorch"}}) {
    auto answer = receive_delivery(*store_, gh_, id, "issues", issue_body(repo, 7, title));
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status, 202u) << repo << ": " << answer->body.dump();
  }
  for (const auto& [repo, taxonomy_name] :
       {std::pair{"intel/torch-xpu-ops", "torch-xpu-ops"}, std::pair{"pytorch/pytorch", "pytorch"}}) {
    const auto taxonomy = analyzers::labeler::load_taxonomy(taxonomy_name);
    ASSERT_TRUE(taxonomy.ok());
    const auto labels = labels_of(outbox(repo));
    ASSERT_FALSE(labels.empty()) << repo;
    for (const auto& l : labels) EXPECT_TRUE(taxonomy->canonical_label(l)) << repo << " got " << l;
  }
  // hw: BMG is torch-xpu-ops' spelling; pytorch has no such label.
  const auto xpu = labels_of(outbox("intel/torch-xpu-ops"));
  EXPECT_NE(std::find(xpu.begin(), xpu.end(), "hw: BMG"), xpu.end());
  const auto comments = [&](const std::string& repo) {
    const auto rows = outbox(repo);
    return std::count_if(rows.begin(), rows.end(),
                         [](const schema::OutboxRow& r) { return r.kind == schema::OutboxKind::upsert_comment; });
  };
  EXPECT_EQ(comments("intel/torch-xpu-ops"), 1);
  EXPECT_EQ(comments("pytorch/pytorch"), 0);  // comment = false
}

TEST_F(RepoDeliveries, ARepositoryWithLabelsOffGetsOnlyItsComment) {
  gh_.repos[0].label = false;
  auto answer = receive_delivery(*store_, gh_, "x1", "issues", issue_body("intel/torch-xpu-ops", 9, "[BMG] slow"));
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  const auto rows = outbox("intel/torch-xpu-ops");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, schema::OutboxKind::upsert_comment);
}

}  // namespace
}  // namespace perftriage::server
