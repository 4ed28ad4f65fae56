// The bot's tables: delivery dedupe (atomic, also across connections), outbox state transitions, label memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <filesystem>
#include <thread>
#include <unistd.h>

#include "schema/bot_store.hpp"
#include "schema/store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

class BotStoreTest : public testing_support::StoreTest {
 protected:
  std::int64_t enqueue(OutboxKind kind, OutboxState state, std::int64_t at = 0) {
    auto id = in_tx([&] { return schema::enqueue(db(), {"o/r", 5, kind, {{"labels", {"a"}}}}, state, at); });
    EXPECT_TRUE(id.ok());
    return id.ok() ? *id : 0;
  }
};

TEST_F(BotStoreTest, FirstDeliveryIsNewARedeliveryIsNot) {
  auto first = in_tx([&] { return record_delivery(db(), "d-1", "issues", "opened"); });
  auto again = in_tx([&] { return record_delivery(db(), "d-1", "issues", "opened"); });
  auto other = in_tx([&] { return record_delivery(db(), "d-2", "issues", "opened"); });
  ASSERT_TRUE(first.ok() && again.ok() && other.ok());
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*again);
  EXPECT_TRUE(*other);
}

// A webhook body is JSON with backslash escapes and any bytes GitHub sent; it is kept as it came, byte for byte
// (PostgreSQL would read a text parameter into its bytea column as escape syntax and refuse `\n`).
TEST_F(BotStoreTest, AProcessingDeliveryKeepsItsPayloadByteForByte) {
  const std::string payload = std::string(R"({"body":"a\nb \\ \u00e9 \x"})") + '\0' + "\xff tail";
  auto claim = claim_delivery(db(), "d-raw", "issues", "opened", payload, {.max_attempts = 5, .now_ms = 1000});
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_EQ(*claim, DeliveryClaim::fresh);
  auto again = claim_delivery(db(), "d-raw", "issues", "opened", payload, {.max_attempts = 5, .now_ms = 2000});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, DeliveryClaim::retry);
  auto rows = list_deliveries(db(), "processing");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().payload, payload);
}

// A copy that arrives while the first is being processed (another replica) neither processes it again nor counts an
// attempt; after the lease (the first one's process died) it retries, and a failed attempt frees it at once.
TEST_F(BotStoreTest, ADeliveryBeingProcessedIsLeasedToItsClaimer) {
  auto claim = [&](std::int64_t now) {
    auto c =
        claim_delivery(db(), "d-lease", "issues", "opened", "{}", {.max_attempts = 3, .now_ms = now, .lease_ms = 100});
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? *c : DeliveryClaim::duplicate;
  };
  EXPECT_EQ(claim(1000), DeliveryClaim::fresh);
  EXPECT_EQ(claim(1050), DeliveryClaim::in_progress);
  EXPECT_EQ(claim(1099), DeliveryClaim::in_progress);
  EXPECT_EQ(claim(1100), DeliveryClaim::retry);  // the lease ran out: the claimer is gone
  EXPECT_EQ(claim(1150), DeliveryClaim::in_progress);
  ASSERT_TRUE(note_delivery_error(db(), "d-lease", "boom").ok());
  EXPECT_EQ(claim(1160), DeliveryClaim::retry);  // a failed attempt leaves it to the next copy at once
  EXPECT_EQ(claim(1170), DeliveryClaim::in_progress);
  ASSERT_TRUE(release_delivery_leases(db()).ok());
  EXPECT_EQ(claim(1180), DeliveryClaim::quarantined);  // the third attempt was the last
  auto rows = list_deliveries(db(), "quarantined");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().attempts, 3);
}

TEST(BotStoreConcurrency, RacingRedeliveriesAreAcceptedOnce) {
  const auto path =
      std::filesystem::temp_directory_path() / ("perftriage-bot-race-" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  const std::string db = testing_support::test_db_file(path.string());  // on PostgreSQL: four replicas' connections
  { ASSERT_TRUE(Store::open(db).ok()); }
  std::atomic<int> accepted{0};
  std::mutex mutex;
  std::vector<std::string> errors;  // what went wrong, not only how often: a race shows up once in many runs
  auto failed = [&](const std::string& what) {
    std::lock_guard lock(mutex);
    errors.push_back(what);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto s = Store::open(db);
      if (!s) return failed("open: " + s.error().message);
      for (int i = 0; i < 25; ++i) {
        auto tx = Transaction::begin(s->db());
        if (!tx) {
          failed("begin: " + tx.error().message);
          continue;
        }
        auto r = record_delivery(s->db(), "delivery-" + std::to_string(i), "issues", "opened");
        if (!r)
          failed("record: " + r.error().message);
        else if (*r)
          ++accepted;
        if (auto c = tx->commit(); !c) failed("commit: " + c.error().message);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  std::filesystem::remove(path.string() + "-shm");
  EXPECT_TRUE(errors.empty()) << errors.size() << " errors, the first: " << errors.front();
  EXPECT_EQ(accepted, 25);
}

TEST_F(BotStoreTest, AClaimedActionIsNobodyElsesUntilItsLeaseEnds) {
  const auto a = enqueue(OutboxKind::create_label, OutboxState::pending, 100);
  const auto b = enqueue(OutboxKind::add_labels, OutboxState::pending, 100);
  auto first = claim_due(db(), 100, 10'000);
  ASSERT_TRUE(first.ok() && first->has_value()) << (first ? "" : first.error().message);
  EXPECT_EQ((*first)->id, a);
  EXPECT_EQ((*first)->next_attempt_at, 10'000);
  auto second = claim_due(db(), 100, 10'000);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->id, b);  // not a again
  EXPECT_FALSE(claim_due(db(), 9'999, 20'000)->has_value());
  auto after_lease = claim_due(db(), 10'000, 20'000);  // the sender of a died: it is taken again
  ASSERT_TRUE(after_lease->has_value());
  EXPECT_EQ((*after_lease)->id, a);
  ASSERT_TRUE(release_claim(db(), b, 150).ok());
  auto released = claim_due(db(), 150, 30'000);
  ASSERT_TRUE(released->has_value());
  EXPECT_EQ((*released)->id, b);
  ASSERT_TRUE(mark_sent(db(), b, 1).ok());
  ASSERT_TRUE(release_claim(db(), b, 0).ok());  // a sent action stays sent
  EXPECT_EQ((*outbox_row(db(), b))->state, OutboxState::sent);
}

TEST(BotStoreConcurrency, RacingSendersClaimEachActionOnce) {
  const testing::TempDir dir("perftriage-claim-race");
  const std::string db = testing_support::test_db_file(dir.file("db.sqlite"));
  constexpr int kActions = 60;
  {
    auto s = Store::open(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    for (int i = 0; i < kActions; ++i) {
      ASSERT_TRUE(schema::enqueue(s->db(), {"o/r", i + 1, OutboxKind::add_labels, {}}, OutboxState::pending, 0).ok());
    }
  }
  std::mutex mutex;
  std::vector<std::int64_t> claimed;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto s = Store::open(db);
      if (!s) {
        ++errors;
        return;
      }
      for (;;) {
        auto row = claim_due(s->db(), 1000, 1LL << 50);
        if (!row) {
          ++errors;
          continue;
        }
        if (!*row) return;
        std::lock_guard lock(mutex);
        claimed.push_back((*row)->id);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors, 0);
  std::sort(claimed.begin(), claimed.end());
  EXPECT_EQ(claimed.size(), static_cast<std::size_t>(kActions));
  EXPECT_EQ(std::adjacent_find(claimed.begin(), claimed.end()), claimed.end()) << "an action was claimed twice";
}

TEST_F(BotStoreTest, PendingActionIsDueInOrder) {
  const auto a = enqueue(OutboxKind::create_label, OutboxState::pending, 100);
  const auto b = enqueue(OutboxKind::add_labels, OutboxState::pending, 100);
  auto due = next_due(db(), 100);
  ASSERT_TRUE(due.ok() && due->has_value());
  EXPECT_EQ((*due)->id, a);
  EXPECT_EQ((*due)->kind, OutboxKind::create_label);
  EXPECT_EQ((*due)->payload["labels"][0], "a");
  EXPECT_LT(a, b);
}

TEST_F(BotStoreTest, NotDueBeforeItsTime) {
  enqueue(OutboxKind::add_labels, OutboxState::pending, 5000);
  auto due = next_due(db(), 4999);
  ASSERT_TRUE(due.ok());
  EXPECT_FALSE(due->has_value());
}

TEST_F(BotStoreTest, DryRunIsNeverDue) {
  enqueue(OutboxKind::add_labels, OutboxState::dry_run);
  auto due = next_due(db(), 1LL << 50);
  ASSERT_TRUE(due.ok());
  EXPECT_FALSE(due->has_value());
  EXPECT_EQ(*count_outbox(db(), OutboxState::dry_run), 1);
}

TEST_F(BotStoreTest, RetryMovesTheActionLaterAndKeepsTheError) {
  const auto id = enqueue(OutboxKind::add_labels, OutboxState::pending, 0);
  ASSERT_TRUE(in_tx([&] { return schedule_retry(db(), id, 1, 2000, "HTTP 500"); }).ok());
  EXPECT_FALSE(next_due(db(), 1999)->has_value());
  auto due = next_due(db(), 2000);
  ASSERT_TRUE(due->has_value());
  EXPECT_EQ((*due)->attempts, 1);
  EXPECT_EQ((*due)->last_error, "HTTP 500");
  EXPECT_EQ((*due)->state, OutboxState::pending);
}

TEST_F(BotStoreTest, SentIsFinal) {
  const auto id = enqueue(OutboxKind::upsert_comment, OutboxState::pending, 0);
  ASSERT_TRUE(in_tx([&] { return mark_sent(db(), id, 2); }).ok());
  EXPECT_FALSE(next_due(db(), 1LL << 50)->has_value());
  auto row = outbox_row(db(), id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state, OutboxState::sent);
  EXPECT_EQ((*row)->attempts, 2);
  EXPECT_FALSE((*row)->sent_at.empty());
  EXPECT_EQ((*row)->last_error, "");
}

TEST_F(BotStoreTest, FailedIsVisibleWithItsError) {
  const auto id = enqueue(OutboxKind::upsert_comment, OutboxState::pending, 0);
  ASSERT_TRUE(in_tx([&] { return mark_failed(db(), id, 8, "gave up after 8 attempts: HTTP 500"); }).ok());
  auto failed = list_outbox(db(), OutboxState::failed);
  ASSERT_TRUE(failed.ok());
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ(failed->front().last_error, "gave up after 8 attempts: HTTP 500");
  EXPECT_EQ(to_json(failed->front())["state"], "failed");
  EXPECT_TRUE(list_outbox(db(), OutboxState::pending)->empty());
  EXPECT_EQ(list_outbox(db(), std::nullopt)->size(), 1u);
}

TEST_F(BotStoreTest, UnknownKindIsRefusedByTheSchema) {
  auto st = Statement::prepare(db(), "INSERT INTO outbox(repo, kind, created_at) VALUES('o/r', 'delete_repo', 'x')");
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(st->run().ok());
}

TEST_F(BotStoreTest, HumanRemovalOfABotLabelIsRemembered) {
  ASSERT_TRUE(in_tx([&] { return record_bot_labels(db(), "o/r", 5, {"performance", "hw: BMG"}); }).ok());
  auto remembered = in_tx([&] { return record_human_removal(db(), "o/r", 5, "performance"); });
  ASSERT_TRUE(remembered.ok());
  EXPECT_TRUE(*remembered);
  EXPECT_EQ(*suppressed_labels(db(), "o/r", 5), std::set<std::string>{"performance"});
  EXPECT_TRUE(suppressed_labels(db(), "o/r", 6)->empty());
}

TEST_F(BotStoreTest, HumanRemovalOfAHumanLabelIsNotRemembered) {
  ASSERT_TRUE(in_tx([&] { return record_human_label(db(), "o/r", 5, "triaged"); }).ok());
  auto remembered = in_tx([&] { return record_human_removal(db(), "o/r", 5, "triaged"); });
  ASSERT_TRUE(remembered.ok());
  EXPECT_FALSE(*remembered);
  EXPECT_TRUE(suppressed_labels(db(), "o/r", 5)->empty());
}

TEST_F(BotStoreTest, AHumanReaddingTheLabelLiftsTheSuppression) {
  ASSERT_TRUE(in_tx([&] { return record_bot_labels(db(), "o/r", 5, {"performance"}); }).ok());
  ASSERT_TRUE(in_tx([&] { return record_human_removal(db(), "o/r", 5, "performance"); }).ok());
  ASSERT_TRUE(in_tx([&] { return record_human_label(db(), "o/r", 5, "performance"); }).ok());
  EXPECT_TRUE(suppressed_labels(db(), "o/r", 5)->empty());
}

TEST_F(BotStoreTest, OneCommentIdPerIssue) {
  EXPECT_FALSE(comment_id(db(), "o/r", 5)->has_value());
  ASSERT_TRUE(in_tx([&] { return set_comment_id(db(), "o/r", 5, 11); }).ok());
  ASSERT_TRUE(in_tx([&] { return set_comment_id(db(), "o/r", 5, 12); }).ok());
  EXPECT_EQ(**comment_id(db(), "o/r", 5), 12);
}

TEST_F(BotStoreTest, TrackingIssueByFingerprint) {
  EXPECT_FALSE(tracking_issue(db(), "BMG|2.12|slow")->has_value());
  ASSERT_TRUE(in_tx([&] { return set_tracking_issue(db(), "BMG|2.12|slow", "o/r", 42); }).ok());
  EXPECT_EQ(**tracking_issue(db(), "BMG|2.12|slow"), 42);
  EXPECT_FALSE(tracking_issue(db(), "BMG|2.13|slow")->has_value());
}

TEST_F(BotStoreTest, LabeledIssueIsUpdatedInPlace) {
  LabeledIssue i{"o/r", 5, "first", nlohmann::json::array(), {"a"}, {{"k", 1}}, ""};
  ASSERT_TRUE(in_tx([&] { return save_labeled_issue(db(), i); }).ok());
  i.title = "second";
  i.labels = {"a", "b"};
  ASSERT_TRUE(in_tx([&] { return save_labeled_issue(db(), i); }).ok());
  auto all = labeled_issues(db());
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().title, "second");
  EXPECT_EQ(all->front().labels.size(), 2u);
  EXPECT_EQ(all->front().result["k"], 1);
}

}  // namespace
}  // namespace perftriage::schema
