// What the GitHub App's installation events leave in the store, on each backend (`pg:schema/...` runs it again on
// PostgreSQL), and an outbox row of the kind migration 019 added.
#include <gtest/gtest.h>

#include "schema/app_installation_store.hpp"
#include "schema/bot_store.hpp"
#include "tests/support/store_fixture.hpp"

namespace perftriage::schema {
namespace {

using testing_support::StoreTest;

class AppInstallationStore : public StoreTest {};

TEST_F(AppInstallationStore, RepositoriesAreAddedRemovedAndLostWithTheirInstallation) {
  ASSERT_TRUE(in_tx([&] { return set_app_repos(db(), 77, {"intel/torch-xpu-ops", "intel/other"}, false, 1000); }));
  ASSERT_TRUE(in_tx([&] { return set_app_repos(db(), 78, {"pytorch/pytorch"}, false, 1000); }));
  auto repo = app_repo(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(repo && *repo);
  EXPECT_EQ((*repo)->installation_id, 77);
  EXPECT_FALSE((*repo)->removed);
  auto unknown = app_repo(db(), "nobody/here");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(*unknown);

  ASSERT_TRUE(in_tx([&] { return set_app_repos(db(), 77, {"intel/other"}, true, 2000); }));
  repo = app_repo(db(), "intel/other");
  ASSERT_TRUE(repo && *repo);
  EXPECT_TRUE((*repo)->removed);
  EXPECT_EQ((*repo)->updated_ms, 2000);

  auto lost = in_tx([&] { return remove_app_installation(db(), 77, 3000); });
  ASSERT_TRUE(lost);
  EXPECT_EQ(*lost, 2);  // both of its repositories, the one already lost included
  auto all = app_repos(db());
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].repo, "intel/other");  // by name
  EXPECT_TRUE((*all)[1].removed);
  EXPECT_FALSE((*all)[2].removed);  // another installation's repository is untouched
  EXPECT_EQ(to_json((*all)[2])["installation_id"], 78);

  // Added back, possibly to another installation: acted on again.
  ASSERT_TRUE(in_tx([&] { return set_app_repos(db(), 79, {"intel/torch-xpu-ops"}, false, 4000); }));
  repo = app_repo(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(repo && *repo);
  EXPECT_FALSE((*repo)->removed);
  EXPECT_EQ((*repo)->installation_id, 79);
}

TEST_F(AppInstallationStore, TheOutboxTakesACommitCheck) {
  const NewAction check{"intel/torch-xpu-ops", 0, OutboxKind::commit_check, {{"sha", "abc1234"}}};
  auto id = in_tx([&] { return enqueue(db(), check, OutboxState::pending, 1); });
  ASSERT_TRUE(id) << id.error().message;
  auto row = outbox_row(db(), *id);
  ASSERT_TRUE(row && *row);
  EXPECT_EQ((*row)->kind, OutboxKind::commit_check);
  EXPECT_EQ(parse_outbox_kind("commit_check"), OutboxKind::commit_check);
}

}  // namespace
}  // namespace perftriage::schema
