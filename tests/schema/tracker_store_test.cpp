// The tracker tables (migration 014): a page and its progress in one transaction, upserts by (repo, number),
// repository names case-insensitive, issues listed by number with their labels.
#include <gtest/gtest.h>

#include <optional>

#include "schema/store.hpp"
#include "schema/tracker_store.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

class TrackerStoreTest : public testing_support::StoreTest {
 protected:
  static TrackerIssue issue(std::int64_t n, std::vector<std::string> labels,
                            std::string updated = "2024-01-01T00:00:00Z") {
    return {"intel/torch-xpu-ops", n, "title " + std::to_string(n), "body", std::move(labels), "open", updated};
  }
  static TrackerSyncState progress(std::string cursor, std::int64_t page = 1, bool finished = false) {
    return {"intel/torch-xpu-ops", "", std::move(cursor), page, finished, "", ""};
  }
};

TEST_F(TrackerStoreTest, APageAndItsProgressAreStoredTogether) {
  auto written =
      store_tracker_page(db(), {issue(3, {"hw: BMG", "performance"}), issue(1, {})}, progress("2024-01-01T00:00:00Z"));
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(*written, 2);
  auto listed = list_tracker_issues(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].number, 1);  // by number
  EXPECT_TRUE((*listed)[0].labels.empty());
  EXPECT_EQ((*listed)[1].labels, (std::vector<std::string>{"hw: BMG", "performance"}));
  EXPECT_EQ((*listed)[1].state, "open");
  EXPECT_EQ((*listed)[1].updated_at, "2024-01-01T00:00:00Z");
  auto sync = find_tracker_sync(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(sync.ok() && sync->has_value());
  EXPECT_EQ((*sync)->cursor_updated_at, "2024-01-01T00:00:00Z");
  EXPECT_EQ((*sync)->next_page, 1);
  EXPECT_FALSE((*sync)->finished);
  EXPECT_FALSE((*sync)->updated_at.empty());
}

TEST_F(TrackerStoreTest, ALaterCopyReplacesTheIssueAndNamesAreCaseInsensitive) {
  ASSERT_TRUE(store_tracker_page(db(), {issue(7, {"a"})}, progress("2024-01-01T00:00:00Z")).ok());
  auto newer = issue(7, {"b", "c"}, "2024-02-01T00:00:00Z");
  newer.state = "closed";
  ASSERT_TRUE(store_tracker_page(db(), {newer}, progress("2024-02-01T00:00:00Z", 1, true)).ok());
  auto listed = list_tracker_issues(db(), "Intel/Torch-XPU-Ops");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].labels, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ((*listed)[0].state, "closed");
  auto count = count_tracker_issues(db(), "INTEL/torch-xpu-ops");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
  auto sync = find_tracker_sync(db(), "intel/TORCH-xpu-ops");
  ASSERT_TRUE(sync.ok() && sync->has_value());
  EXPECT_TRUE((*sync)->finished);
  EXPECT_EQ(*count_tracker_issues(db(), "pytorch/pytorch"), 0);
}

TEST_F(TrackerStoreTest, AFailedPageLeavesNothingBehind) {
  ASSERT_TRUE(store_tracker_page(db(), {issue(1, {})}, progress("2024-01-01T00:00:00Z")).ok());
  auto bad = issue(3, {});
  bad.state = "merged";  // refused by the CHECK: the page and its progress roll back together
  auto r = store_tracker_page(db(), {issue(2, {}), bad}, progress("2024-03-01T00:00:00Z", 1, true));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(*count_tracker_issues(db(), "intel/torch-xpu-ops"), 1);
  auto sync = find_tracker_sync(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(sync.ok() && sync->has_value());
  EXPECT_EQ((*sync)->cursor_updated_at, "2024-01-01T00:00:00Z");
  EXPECT_FALSE((*sync)->finished);
}

TEST_F(TrackerStoreTest, SaveSyncAloneAndNoneBeforeTheFirst) {
  auto none = find_tracker_sync(db(), "a/b");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  TrackerSyncState s{"a/b", "2024-01-01T00:00:00Z", "", 1, false, "rate limited", ""};
  ASSERT_TRUE(save_tracker_sync(db(), s).ok());
  auto found = find_tracker_sync(db(), "a/b");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->since, "2024-01-01T00:00:00Z");
  EXPECT_EQ((*found)->last_error, "rate limited");
}

TEST_F(TrackerStoreTest, UnreadableLabelsReadAsNone) {
  ASSERT_TRUE(store_tracker_page(db(), {issue(1, {"x"})}, progress("")).ok());
  ASSERT_TRUE(db().exec("UPDATE tracker_issues SET labels = 'not json'").ok());
  auto listed = list_tracker_issues(db(), "intel/torch-xpu-ops");
  ASSERT_TRUE(listed.ok() && listed->size() == 1u);
  EXPECT_TRUE((*listed)[0].labels.empty());
}

}  // namespace
}  // namespace perftriage::schema
