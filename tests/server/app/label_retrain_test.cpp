// serve's retrain of the labeler (server/app/label_retrain.hpp) on a store holding a synced history and the
// maintainers' corrections: when it trains, what it stores, and which model the bot then labels with.
#include <gtest/gtest.h>

#include "analyzers/labeler/model.hpp"
#include "schema/bot_store.hpp"
#include "schema/label_model_store.hpp"
#include "schema/tracker_store.hpp"
#include "server/app/label_retrain.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

constexpr const char* kRepo = "intel/torch-xpu-ops";

class LabelRetrain : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_.emplace(std::move(*s));
  }
  auto& db() { return store_->db(); }
  // 30 issues the tracker labeled `performance` (every one says an inductor case is slower than eager on BMG).
  void history(const std::string& repo = kRepo) {
    std::vector<schema::TrackerIssue> issues;
    for (int i = 0; i < 30; ++i) {
      issues.push_back({repo,
                        100 + i,
                        "[BMG] model " + std::to_string(i) + " inductor slower than eager",
                        "speedup 0.6" + std::to_string(i % 10),
                        {"performance"},
                        "open",
                        "2024-01-01T00:00:00Z"});
    }
    ASSERT_TRUE(schema::store_tracker_page(db(), issues, {repo, "", "2024-01-01T00:00:00Z", 1, true, "", ""}).ok());
  }
  // A maintainer removed the bot's `performance` from the issues numbered 100 to 100 + n - 1.
  void corrections(int n, const std::string& repo = kRepo) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(schema::save_labeled_issue(db(), {repo, 100 + i, "t", {}, {"performance"}, {}, {}}).ok());
      ASSERT_TRUE(schema::record_bot_labels(db(), repo, 100 + i, {"performance"}).ok());
      ASSERT_TRUE(schema::record_human_removal(db(), repo, 100 + i, "performance").ok());
    }
  }
  GitHubSettings gh() {
    GitHubSettings g;
    g.taxonomy = "torch-xpu-ops";
    return g;
  }
  std::optional<schema::Store> store_;
};

TEST_F(LabelRetrain, TrainsOnceEnoughCorrectionsGatheredThenWaitsForAsManyMore) {
  history();
  corrections(4);
  auto none = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:00:00Z");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());  // 4 < 5

  corrections(6);  // numbers 100 to 105: the first four again (nothing new), two more: 6 in all
  auto first = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:01:00Z");
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].repo, kRepo);
  EXPECT_EQ((*first)[0].issues, 30);
  EXPECT_EQ((*first)[0].corrections, 6);
  auto stored = schema::label_model(db(), kRepo);
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->trained_at, "2026-12-07T05:01:00Z");
  auto model = analyzers::labeler::load_model((*stored)->model);
  ASSERT_TRUE(model) << model.error().message;
  EXPECT_EQ(model->source, std::string("db:") + kRepo);
  EXPECT_FALSE(model->calibration.empty());

  corrections(10);  // 4 more than it learned from: not yet
  auto again = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:02:00Z");
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->empty());
  corrections(11);
  again = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:03:00Z");
  ASSERT_TRUE(again);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].corrections, 11);

  auto listed = retrained_models(db(), "");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0]["corrections_since"], 0);
  EXPECT_EQ((*listed)[0]["trained_at"], "2026-12-07T05:03:00Z");
}

TEST_F(LabelRetrain, NothingWithoutAHistoryOrWhenTurnedOff) {
  corrections(8);  // corrections, but no synced history to learn from
  auto r = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:00:00Z");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->empty());
  history();
  auto off = retrain_due_models(*store_, gh(), 0, "2026-12-07T05:00:00Z");
  ASSERT_TRUE(off);
  EXPECT_TRUE(off->empty());
  auto no_model = gh();
  no_model.label_model = "none";  // the operator turned the learned layer off
  r = retrain_due_models(*store_, no_model, 5, "2026-12-07T05:00:00Z");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  auto listed = gh();
  listed.repos = {RepoSettings{"pytorch/pytorch"}};  // the bot serves another repository only
  r = retrain_due_models(*store_, listed, 5, "2026-12-07T05:00:00Z");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

// A server that stops does not wait for a training: asked between labels and folds, it ends, and nothing is stored.
TEST_F(LabelRetrain, AStoppedTrainingStoresNothing) {
  history();
  corrections(6);
  int asked = 0;
  auto r = retrain_due_models(*store_, gh(), 5, "2026-12-07T05:00:00Z", [&] { return ++asked > 3; });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "training_stopped");
  EXPECT_GT(asked, 3);
  auto stored = schema::label_model(db(), kRepo);
  ASSERT_TRUE(stored);
  EXPECT_FALSE(*stored);
}

TEST_F(LabelRetrain, TheBotLabelsWithTheRetrainedModelOfItsRepositoryAndTaxonomy) {
  history();
  corrections(6);
  ASSERT_TRUE(retrain_due_models(*store_, gh(), 5, "2026-12-07T05:00:00Z").value().size() == 1u);
  auto stored = schema::label_model(db(), kRepo).value();
  ASSERT_TRUE(stored);

  auto retrained = repo_taxonomy(db(), kRepo, "torch-xpu-ops", "");
  ASSERT_TRUE(retrained) << retrained.error().message;
  ASSERT_TRUE(retrained->model);
  EXPECT_EQ(retrained->model->source, std::string("db:") + kRepo);
  auto again = repo_taxonomy(db(), "Intel/Torch-XPU-Ops", "torch-xpu-ops", "");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->model, retrained->model);  // parsed once per training

  auto builtin = repo_taxonomy(db(), "someone/else", "torch-xpu-ops", "");
  ASSERT_TRUE(builtin);
  ASSERT_TRUE(builtin->model);
  EXPECT_NE(builtin->model->source, std::string("db:") + kRepo);
  auto rules_only = repo_taxonomy(db(), kRepo, "torch-xpu-ops", "none");
  ASSERT_TRUE(rules_only);
  EXPECT_FALSE(rules_only->model);
  auto other_taxonomy = repo_taxonomy(db(), kRepo, "pytorch", "");
  ASSERT_TRUE(other_taxonomy);
  EXPECT_TRUE(!other_taxonomy->model || other_taxonomy->model->source != std::string("db:") + kRepo);
}

}  // namespace
}  // namespace perftriage::server
