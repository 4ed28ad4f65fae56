// The store functions whose SQL the two dialects spell differently (an id list bound as JSON, a LIMIT with no
// limit, insertion order as a tie-break, a two-value maximum, counting by condition): the same assertions on
// SQLite here and on PostgreSQL when the suite runs again as `pg:`.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "schema/bot_store.hpp"
#include "schema/retention_store.hpp"
#include "schema/store.hpp"
#include "schema/tracking_store.hpp"
#include "tests/support/store_fixture.hpp"

namespace perftriage::schema {
namespace {

constexpr const char* kEveryCutoff = "9999-12-31T00:00:00Z";  // later than any stored time

class DialectConformance : public testing_support::StoreTest {
 protected:
  std::int64_t enqueue_for(const std::string& repo, std::int64_t number) {
    auto id = in_tx([&] {
      return schema::enqueue(db(), {repo, number, OutboxKind::add_labels, {{"labels", {"a"}}}}, OutboxState::pending,
                             0);
    });
    EXPECT_TRUE(id.ok()) << id.error().message;
    return id.ok() ? *id : 0;
  }
  void deliver(const std::string& id, bool finish) {
    auto claimed = in_tx([&] { return claim_delivery(db(), id, "issues", "opened", "{}", {2, 1000, 60000}); });
    ASSERT_TRUE(claimed.ok()) << claimed.error().message;
    if (!finish) return;
    auto done = in_tx([&] { return finish_delivery(db(), id); });
    ASSERT_TRUE(done.ok() && *done);
  }
};

TEST_F(DialectConformance, OutboxToDryRunTouchesOnlyTheIssuesOfTheList) {
  for (std::int64_t n : {1, 2, 3}) enqueue_for("o/a", n);
  enqueue_for("o/b", 1);
  auto changed = in_tx([&] { return outbox_to_dry_run(db(), "o/a", {1, 3, 99}); });
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(*changed, 2);
  auto dry = list_outbox(db(), OutboxState::dry_run, -1);
  ASSERT_TRUE(dry.ok());
  std::set<std::pair<std::string, std::int64_t>> got;
  for (const auto& row : *dry) got.insert({row.repo, row.issue_number});
  EXPECT_EQ(got, (std::set<std::pair<std::string, std::int64_t>>{{"o/a", 1}, {"o/a", 3}}));
  auto counts = outbox_counts(db());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->at("pending"), 2);
  EXPECT_EQ(counts->at("dry_run"), 2);
}

TEST_F(DialectConformance, DeliveriesNewestFirstAndANegativeLimitMeansAll) {
  for (const char* id : {"d1", "d2", "d3"}) deliver(id, std::string(id) != "d3");
  auto all = list_deliveries(db(), "", -1);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  // Received within the same second: the later insert is the newer one.
  EXPECT_EQ((*all)[0].delivery_id, "d3");
  EXPECT_EQ((*all)[2].delivery_id, "d1");
  auto two = list_deliveries(db(), "", 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 2u);
  auto done = count_deliveries(db(), "done");
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(*done, 2);
  auto by_state = delivery_counts(db());
  ASSERT_TRUE(by_state.ok());
  EXPECT_EQ(by_state->at("processing"), 1);
}

TEST_F(DialectConformance, RetentionDeletesDoneDeliveriesInBatches) {
  for (const char* id : {"d1", "d2", "d3"}) deliver(id, std::string(id) != "d3");
  auto before = count_done_deliveries(db(), kEveryCutoff);
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(*before, 2);
  auto none = count_done_deliveries(db(), "2000-01-01T00:00:00Z");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0);
  auto first = delete_done_deliveries(db(), kEveryCutoff, 1);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, 1);
  auto rest = delete_done_deliveries(db(), kEveryCutoff, -1);
  ASSERT_TRUE(rest.ok()) << rest.error().message;
  EXPECT_EQ(*rest, 1);
  auto left = list_deliveries(db(), "", -1);
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].delivery_id, "d3");  // the unfinished one stays
}

TEST_F(DialectConformance, RetentionDeletesSentAndDryRunActionsOnly) {
  const auto sent = enqueue_for("o/a", 1);
  enqueue_for("o/a", 2);
  enqueue_for("o/a", 3);
  ASSERT_TRUE(in_tx([&] { return mark_sent(db(), sent, 1); }).ok());
  ASSERT_TRUE(in_tx([&] { return outbox_to_dry_run(db(), "o/a", {2}); }).ok());
  auto counted = count_sent_outbox(db(), kEveryCutoff);
  ASSERT_TRUE(counted.ok()) << counted.error().message;
  EXPECT_EQ(*counted, 2);
  auto deleted = delete_sent_outbox(db(), kEveryCutoff, -1);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(*deleted, 2);
  auto left = list_outbox(db(), std::nullopt, -1);
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].issue_number, 3);
}

TEST_F(DialectConformance, ANotificationThatFailsForGoodIsNoLongerDue) {
  ASSERT_TRUE(in_tx([&] { return enqueue_notification(db(), "http://h/x", "regression", "{}"); }).ok());
  ASSERT_TRUE(in_tx([&] { return enqueue_notification(db(), "http://h/y", "regression", "{}"); }).ok());
  auto due = due_notifications(db(), 1LL << 50, -1);
  ASSERT_TRUE(due.ok()) << due.error().message;
  ASSERT_EQ(due->size(), 2u);
  // A negative next attempt means "failed": it is stored as 0, never as a negative time.
  ASSERT_TRUE(in_tx([&] { return record_notification_attempt(db(), (*due)[0].id, false, -1, "gone"); }).ok());
  ASSERT_TRUE(in_tx([&] { return record_notification_attempt(db(), (*due)[1].id, false, 1LL << 52, "later"); }).ok());
  auto still = due_notifications(db(), 1LL << 50, -1);
  ASSERT_TRUE(still.ok());
  EXPECT_TRUE(still->empty());
  auto later = due_notifications(db(), 1LL << 53, -1);
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->size(), 1u);
  EXPECT_EQ((*later)[0].id, (*due)[1].id);
  auto listed = list_notifications(db(), -1);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  const auto failed =
      std::find_if(listed->begin(), listed->end(), [&](const Notification& n) { return n.id == (*due)[0].id; });
  ASSERT_NE(failed, listed->end());
  EXPECT_EQ(failed->state, "failed");
  EXPECT_EQ(failed->attempts, 1);
}

}  // namespace
}  // namespace perftriage::schema
