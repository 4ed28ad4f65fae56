// The labeler's retrained models (migration 020) on each backend (`pg:schema/...` runs it again on PostgreSQL): one
// per repository whatever the case of its name, replaced by the next training, listed without their JSON.
#include <gtest/gtest.h>

#include "schema/label_model_store.hpp"
#include "tests/support/store_fixture.hpp"

namespace perftriage::schema {
namespace {

using testing_support::StoreTest;

class LabelModelStore : public StoreTest {};

TEST_F(LabelModelStore, OnePerRepositoryReplacedByTheNextTraining) {
  auto none = label_model(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(*none);

  ASSERT_TRUE(in_tx([&] {
    return save_label_model(
        db(), {"intel/torch-xpu-ops", "torch-xpu-ops", R"({"labels":[]})", 40, 20, "2026-12-07T05:00:00Z"});
  }));
  ASSERT_TRUE(in_tx([&] {
    return save_label_model(db(), {"pytorch/pytorch", "pytorch", R"({"labels":[1]})", 10, 5, "2026-12-07T05:01:00Z"});
  }));
  auto stored = label_model(db(), "Intel/Torch-XPU-Ops");  // GitHub's names are case-insensitive
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->repo, "intel/torch-xpu-ops");
  EXPECT_EQ((*stored)->model, R"({"labels":[]})");
  EXPECT_EQ((*stored)->corrections, 20);

  ASSERT_TRUE(in_tx([&] {
    return save_label_model(
        db(), {"intel/torch-xpu-ops", "torch-xpu-ops", R"({"labels":[2]})", 41, 45, "2026-12-07T06:00:00Z"});
  }));
  stored = label_model(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->model, R"({"labels":[2]})");
  EXPECT_EQ((*stored)->issues, 41);
  EXPECT_EQ((*stored)->corrections, 45);
  EXPECT_EQ((*stored)->trained_at, "2026-12-07T06:00:00Z");

  auto head = label_model_head(db(), "INTEL/torch-xpu-ops");  // which training, without the model's JSON
  ASSERT_TRUE(head && *head);
  EXPECT_EQ((*head)->repo, "intel/torch-xpu-ops");
  EXPECT_TRUE((*head)->model.empty());
  EXPECT_EQ((*head)->trained_at, "2026-12-07T06:00:00Z");
  EXPECT_EQ((*head)->corrections, 45);

  auto all = label_models(db());
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].repo, "intel/torch-xpu-ops");  // by name
  EXPECT_EQ((*all)[1].repo, "pytorch/pytorch");
  EXPECT_TRUE((*all)[0].model.empty());  // the list leaves the models' JSON out
  EXPECT_EQ((*all)[1].taxonomy, "pytorch");
}

}  // namespace
}  // namespace perftriage::schema
