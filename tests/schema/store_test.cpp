#include <gtest/gtest.h>

#include "schema/blob_codec.hpp"
#include "schema/migrate.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

ingest::ResultRow perf_row(std::string model, double speedup, double latency, std::int64_t line) {
  ingest::ResultRow r;
  r.line = line;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = speedup == 0 ? 0 : 8;
  r.speedup = speedup;
  r.speedup_text = std::to_string(speedup);
  r.abs_latency_ms = latency;
  return r;
}

ingest::ResultRow acc_row(std::string model, std::string status, std::int64_t line) {
  ingest::ResultRow r;
  r.line = line;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 8;
  r.accuracy = std::move(status);
  return r;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }

  std::int64_t run(const std::string& key, const std::string& platform, const std::string& created) {
    auto id = ensure_run(store_->db(), {key, platform, "xpu", "2.12.0+xpu", "", created, {}, "{}"});
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  std::int64_t file(std::int64_t run_id, const std::string& path, const ingest::Axes& axes, std::string_view bytes) {
    NewFile f{path, axes.kind, axes, bytes, sha256_hex(bytes), "dev,name", 0, 0, ""};
    auto id = insert_file(store_->db(), run_id, f);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  void rows(std::int64_t run_id, std::int64_t file_id, const ingest::Axes& axes,
            const std::vector<ingest::ResultRow>& rs) {
    std::vector<model::RowFlags> flags;
    for (const auto& r : rs) {
      flags.push_back({axes.kind == "performance" && (!r.speedup || *r.speedup == 0),
                       axes.kind == "accuracy" && !ingest::accuracy_passes(r.accuracy)});
    }
    auto ok = insert_results(store_->db(), run_id, file_id, axes, rs, flags);
    ASSERT_TRUE(ok) << ok.error().message;
  }

  std::optional<Store> store_;
};

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};
const ingest::Axes kAcc{"huggingface", "bfloat16", "inference", "accuracy", "xpu", ""};

TEST_F(StoreTest, MigratesToLatestVersionAndReopenIsIdempotent) {
  auto version = schema_version(store_->db());
  ASSERT_TRUE(version) << version.error().message;
  EXPECT_EQ(*version, latest_schema_version());
  EXPECT_GE(latest_schema_version(), 1);
  auto again = migrate(store_->db());
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, latest_schema_version());
}

TEST(Migrations, VersionsAreContiguousFromOne) {
  // A gap would be skipped forever by databases already past it.
  int expected = 1;
  for (const auto& m : kMigrations) EXPECT_EQ(m.version, expected++) << m.name;
  EXPECT_EQ(latest_schema_version(), static_cast<int>(kMigrations.size()));
}

TEST_F(StoreTest, EnsureRunMergesTagsAndRefusesAnotherPlatform) {
  auto a =
      ensure_run(store_->db(), {"r1", "BMG", "", "", "", "2026-01-01T00:00:00Z", {"nightly"}, R"({"driver":"1"})"});
  ASSERT_TRUE(a);
  auto b = ensure_run(store_->db(), {"r1", "BMG", "xpu", "2.12", "abc", "", {"nightly", "shard2"}, R"({"mkl":"2"})"});
  ASSERT_TRUE(b);
  EXPECT_EQ(*a, *b);
  auto found = find_run(store_->db(), "r1");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->meta.tags, (std::vector<std::string>{"nightly", "shard2"}));
  EXPECT_EQ((*found)->meta.device, "xpu");
  EXPECT_EQ((*found)->meta.created_at, "2026-01-01T00:00:00Z");
  EXPECT_NE((*found)->meta.environment_json.find("driver"), std::string::npos);
  EXPECT_NE((*found)->meta.environment_json.find("mkl"), std::string::npos);

  auto clash = ensure_run(store_->db(), {"r1", "PVC", "", "", "", "", {}, "{}"});
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().kind, ErrorKind::conflict);
  EXPECT_EQ(clash.error().code, "run_platform_mismatch");
}

TEST_F(StoreTest, SlowFilterUsesThresholdAndExcludesFailures) {
  const auto r = run("r", "BMG", "2026-01-01T00:00:00Z");
  const auto f = file(r, "a.csv", kPerf, "x");
  rows(r, f, kPerf,
       {perf_row("fast", 1.5, 10, 2), perf_row("slow", 0.66, 10, 3), perf_row("edge", 0.97, 10, 4),
        perf_row("broken", 0.0, 0, 5)});
  ResultFilter filter;
  filter.run_ids = {r};
  filter.flag = ResultFlag::slow;
  auto slow = results(store_->db(), filter);
  ASSERT_TRUE(slow);
  ASSERT_EQ(slow->size(), 2u);
  filter.threshold = 0.95;
  slow = results(store_->db(), filter);
  ASSERT_TRUE(slow);
  ASSERT_EQ(slow->size(), 1u);
  EXPECT_EQ(slow->front().model, "slow");
  EXPECT_EQ(slow->front().source, "a.csv");
  ASSERT_TRUE(slow->front().eager_latency_ms);
  EXPECT_DOUBLE_EQ(*slow->front().eager_latency_ms, 6.6);

  filter.flag = ResultFlag::failed;
  auto failed = results(store_->db(), filter);
  ASSERT_TRUE(failed);
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ(failed->front().model, "broken");

  auto counts = run_counts(store_->db(), r, 1.0);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->rows, 4);
  EXPECT_EQ(counts->slow, 2);
  EXPECT_EQ(counts->failed, 1);
  EXPECT_EQ(counts->files, 1);
}

TEST_F(StoreTest, RolledBackTransactionLeavesNothing) {
  {
    auto tx = Transaction::begin(store_->db());
    ASSERT_TRUE(tx);
    const auto r = run("gone", "BMG", "");
    const auto f = file(r, "a.csv", kPerf, "x");
    rows(r, f, kPerf, {perf_row("m", 0.5, 1, 2)});
    // no commit: the destructor rolls back
  }
  auto runs = list_runs(store_->db());
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
  auto all = results(store_->db(), {});
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->empty());
}

TEST_F(StoreTest, SupersedeReplacesRowsAndKeepsOneLiveFile) {
  const auto r = run("r", "BMG", "");
  const auto old_id = file(r, "a.csv", kPerf, "old");
  rows(r, old_id, kPerf, {perf_row("m", 0.5, 1, 2)});
  // A second live file for the same path is refused by the unique index.
  NewFile dup{"a.csv", "performance", kPerf, "new", sha256_hex("new"), "", 0, 0, ""};
  auto refused = insert_file(store_->db(), r, dup);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::conflict);

  NewFile replacement{"a.csv", "performance", kPerf, "new", sha256_hex("new"), "", 0, 0, ""};
  auto new_id_result = replace_file(store_->db(), r, old_id, replacement);
  ASSERT_TRUE(new_id_result) << new_id_result.error().message;
  const auto new_id = *new_id_result;
  auto audit = Statement::prepare(store_->db(), "SELECT superseded_by FROM result_files WHERE id = $1");
  ASSERT_TRUE(audit);
  audit->bind(1, old_id);
  ASSERT_TRUE(*audit->step());
  EXPECT_EQ(audit->int64(0), new_id);
  rows(r, new_id, kPerf, {perf_row("m", 1.5, 1, 2)});

  auto live = live_file(store_->db(), r, "a.csv");
  ASSERT_TRUE(live && *live);
  EXPECT_EQ((*live)->id, new_id);
  EXPECT_EQ((*live)->sha256, sha256_hex("new"));
  auto all = results(store_->db(), {});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_DOUBLE_EQ(*all->front().speedup, 1.5);
}

TEST_F(StoreTest, RawBytesRoundTripCompressed) {
  const auto r = run("r", "BMG", "");
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += "xpu,Model" + std::to_string(i) + ",8,1.2,3.4\n";
  const auto f = file(r, "a.csv", kPerf, bytes);
  auto back = file_bytes(store_->db(), f);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, bytes);
  auto st = Statement::prepare(
      store_->db(), "SELECT length(b.raw_deflate), f.size FROM result_files f JOIN file_blobs b ON b.file_id = f.id");
  ASSERT_TRUE(st && *st->step());
  EXPECT_LT(st->int64(0), st->int64(1) / 3);
  // Stored as one zstd frame (its magic number first).
  auto blob = Statement::prepare(store_->db(), "SELECT raw_deflate FROM file_blobs");
  ASSERT_TRUE(blob && *blob->step());
  EXPECT_EQ(blob->blob(0).substr(0, 4), std::string("\x28\xB5\x2F\xFD"));
}

// Files stored before zstd hold a zlib stream: they read back as they did.
TEST_F(StoreTest, RawBytesStoredAsZlibBeforeStillReadBack) {
  const auto r = run("r", "BMG", "");
  std::string bytes;
  for (int i = 0; i < 500; ++i) bytes += "xpu,Old" + std::to_string(i) + ",4,0.9,2.5\n";
  const auto f = file(r, "old.csv", kPerf, bytes);
  auto st = Statement::prepare(store_->db(), "UPDATE file_blobs SET raw_deflate = $2 WHERE file_id = $1");
  ASSERT_TRUE(st);
  const std::string zlib = deflate_bytes(bytes);
  ASSERT_EQ(static_cast<unsigned char>(zlib[0]), 0x78);  // a zlib header, no zstd magic
  st->bind(1, f).bind_blob_static(2, zlib);
  ASSERT_TRUE(st->run());
  auto back = file_bytes(store_->db(), f);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, bytes);
}

// A frame that is cut short, or whose content is not the recorded size, is refused, never read past.
TEST(BlobCodec, ZstdFrameOfAnotherSizeOrCutShortIsCorrupt) {
  std::string bytes;
  for (int i = 0; i < 2000; ++i) bytes += "xpu,M" + std::to_string(i) + ",1,1.0\n";
  const std::string frame = compress_file_bytes(bytes);
  ASSERT_FALSE(frame.empty());
  auto whole = inflate_bytes(frame, bytes.size());
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, bytes);
  for (const std::size_t size : {bytes.size() - 1, bytes.size() + 1, std::size_t{0}}) {
    auto wrong = inflate_bytes(frame, size);
    ASSERT_FALSE(wrong) << size;
    EXPECT_EQ(wrong.error().code, "corrupt_blob");
  }
  auto cut = inflate_bytes(std::string_view(frame).substr(0, frame.size() / 2), bytes.size());
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, "corrupt_blob");
  EXPECT_TRUE(compress_file_bytes("").size() > 0);  // an empty file is a valid, empty frame
  auto empty = inflate_bytes(compress_file_bytes(""), 0);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST_F(StoreTest, UnreliableWhenTheSameModelFailsAccuracy) {
  const auto r = run("r", "BMG", "");
  const auto pf = file(r, "perf.csv", kPerf, "p");
  rows(r, pf, kPerf, {perf_row("good", 0.8, 1, 2), perf_row("bad", 0.7, 1, 3)});
  const auto af = file(r, "acc.csv", kAcc, "a");
  rows(r, af, kAcc, {acc_row("good", "pass", 2), acc_row("bad", "fail_accuracy", 3)});
  ASSERT_TRUE(refresh_run_flags(store_->db(), r));
  ResultFilter filter;
  filter.flag = ResultFlag::unreliable;
  auto unreliable = results(store_->db(), filter);
  ASSERT_TRUE(unreliable);
  ASSERT_EQ(unreliable->size(), 1u);
  EXPECT_EQ(unreliable->front().model, "bad");
  EXPECT_EQ(unreliable->front().kind, "performance");
}

TEST_F(StoreTest, DeviationFromReferenceIsFlaggedBothWays) {
  const auto r = run("r", "BMG", "");
  const auto ref =
      file(r, "inductor_huggingface_inference.csv", {"huggingface", "", "inference", "reference", "", ""}, "ref");
  std::vector<ingest::Expectation> exp{
      {2, "huggingface", "inference", "bfloat16", "A", "pass", std::nullopt, std::nullopt, ""},
      {3, "huggingface", "inference", "", "B", "fail_accuracy", std::nullopt, std::nullopt, ""},
      {4, "huggingface", "inference", "", "C", "pass", std::nullopt, std::nullopt, ""},
      {5, "huggingface", "inference", "", "D", "pass", std::nullopt, std::nullopt, ""}};
  ASSERT_TRUE(insert_expectations(store_->db(), r, ref, exp));
  const auto af = file(r, "acc.csv", kAcc, "a");
  // A: expected pass, fails -> deviates. B: expected fail, passes -> deviates. C: as expected. D: no row -> missing.
  rows(r, af, kAcc, {acc_row("A", "fail_to_run", 2), acc_row("B", "pass", 3), acc_row("C", "pass_due_to_skip", 4)});
  ASSERT_TRUE(refresh_run_flags(store_->db(), r));
  ResultFilter filter;
  filter.flag = ResultFlag::deviates;
  auto dev = results(store_->db(), filter);
  ASSERT_TRUE(dev);
  ASSERT_EQ(dev->size(), 2u);
  EXPECT_EQ(dev->at(0).model, "A");
  EXPECT_EQ(dev->at(0).expected_accuracy.value_or(""), "pass");
  EXPECT_EQ(dev->at(1).model, "B");

  auto run_record = find_run(store_->db(), "r");
  ASSERT_TRUE(run_record && *run_record);
  auto missing = schema::missing(store_->db(), **run_record);
  ASSERT_TRUE(missing);
  ASSERT_EQ(missing->size(), 1u);
  EXPECT_EQ(missing->front().model, "D");
  EXPECT_EQ(missing->front().reason, "reference");
  EXPECT_EQ(missing->front().evidence, "inductor_huggingface_inference.csv");
}

TEST_F(StoreTest, MissingAgainstThePreviousRunOfThePlatform) {
  const auto r1 = run("n1", "BMG", "2026-01-01T00:00:00Z");
  const auto other = run("p1", "PVC", "2026-01-02T00:00:00Z");
  const auto r2 = run("n2", "BMG", "2026-01-03T00:00:00Z");
  rows(r1, file(r1, "a.csv", kPerf, "1"), kPerf, {perf_row("A", 1.2, 1, 2), perf_row("B", 1.2, 1, 3)});
  rows(other, file(other, "a.csv", kPerf, "2"), kPerf, {perf_row("Z", 1.2, 1, 2)});
  // Only A now; and a torchbench file the previous run did not have (its models are not "missing").
  rows(r2, file(r2, "a.csv", kPerf, "3"), kPerf, {perf_row("A", 1.3, 1, 2)});
  auto latest = latest_run(store_->db(), "BMG");
  ASSERT_TRUE(latest && *latest);
  EXPECT_EQ((*latest)->meta.key, "n2");
  auto prev = previous_run(store_->db(), **latest);
  ASSERT_TRUE(prev && *prev);
  EXPECT_EQ((*prev)->meta.key, "n1");
  auto missing = schema::missing(store_->db(), **latest);
  ASSERT_TRUE(missing);
  ASSERT_EQ(missing->size(), 1u);
  EXPECT_EQ(missing->front().model, "B");
  EXPECT_EQ(missing->front().reason, "previous_run");
  EXPECT_EQ(missing->front().evidence, "n1");
}

TEST_F(StoreTest, UnknownColumnsAreKeptAsJson) {
  const auto r = run("r", "BMG", "");
  auto row = perf_row("m", 1.1, 1, 2);
  row.extra = {{"tag", "nightly"}, {"mystery", "42"}};
  rows(r, file(r, "a.csv", kPerf, "x"), kPerf, {row});
  auto all = results(store_->db(), {});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().extra_json, R"({"mystery":"42","tag":"nightly"})");
}

}  // namespace
}  // namespace perftriage::schema
