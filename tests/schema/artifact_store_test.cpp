// schema/artifact_store: the artifacts table through its free functions, on an in-memory store.
#include <gtest/gtest.h>

#include "schema/artifact_store.hpp"
#include "schema/blob_codec.hpp"
#include "schema/store.hpp"
#include "tests/support/gzip_helper.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

class ArtifactStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    auto tx = Transaction::begin(db());
    ASSERT_TRUE(tx);
    model::RunMeta meta;
    meta.key = "run-a";
    meta.platform = "BMG";
    auto id = ensure_run(store_->db(), meta);
    ASSERT_TRUE(id);
    run_id_ = *id;
    ASSERT_TRUE(tx->commit());
  }
  Database& db() { return store_->db(); }

  NewArtifact artifact(const std::string& bytes, const std::string& model = "Bert") {
    bytes_.push_back(bytes);
    NewArtifact a;
    a.run_id = run_id_;
    a.case_ref = {"huggingface", "bfloat16", "inference", model, ""};
    a.name = "trace.json";
    a.role = "compiled";
    a.kind = "kineto";
    a.sha256 = sha256_hex(bytes_.back());
    a.bytes = bytes_.back();
    a.result_json = R"({"kind":"kineto","census":{"device_kernels":3},"findings":[{"classifier":"attention",)"
                    R"("verdict":"math_fallback","evidence":"e"}],"summary":{"verdict":"explained"}})";
    return a;
  }

  std::optional<Store> store_;
  std::int64_t run_id_ = 0;
  std::vector<std::string> bytes_;
};

TEST_F(ArtifactStoreTest, PlainBytesAreStoredDeflatedAndReadBackExactly) {
  const std::string text(10000, 'x');
  auto id = insert_artifact(db(), artifact(text));
  ASSERT_TRUE(id) << id.error().message;
  auto rec = get_artifact(db(), *id);
  ASSERT_TRUE(rec && *rec);
  EXPECT_EQ((*rec)->compression, "deflate");
  EXPECT_EQ((*rec)->size, 10000);
  EXPECT_LT((*rec)->stored_size, 200);
  EXPECT_EQ((*rec)->run_key, "run-a");
  EXPECT_EQ((*rec)->case_ref.model, "Bert");
  EXPECT_EQ((*rec)->role, "compiled");
  EXPECT_FALSE((*rec)->created_at.empty());
  auto bytes = artifact_bytes(db(), *id);
  ASSERT_TRUE(bytes && *bytes);
  EXPECT_EQ(**bytes, text);
}

TEST_F(ArtifactStoreTest, GzipUploadIsKeptAsItIs) {
  const std::string gz = testing::gzip_of(R"({"traceEvents":[]})");
  auto id = insert_artifact(db(), artifact(gz));
  ASSERT_TRUE(id) << id.error().message;
  auto rec = get_artifact(db(), *id);
  ASSERT_TRUE(rec && *rec);
  EXPECT_EQ((*rec)->compression, "gzip");
  EXPECT_EQ((*rec)->stored_size, static_cast<std::int64_t>(gz.size()));
  auto bytes = artifact_bytes(db(), *id);
  ASSERT_TRUE(bytes && *bytes);
  EXPECT_EQ(**bytes, gz);
}

TEST_F(ArtifactStoreTest, SameBytesForTheSameCaseViolateTheUniqueIndex) {
  ASSERT_TRUE(insert_artifact(db(), artifact("abc")));
  EXPECT_FALSE(insert_artifact(db(), artifact("abc")));
  EXPECT_TRUE(insert_artifact(db(), artifact("abc", "Electra")));  // another case may hold the same bytes
}

TEST_F(ArtifactStoreTest, FindArtifactMatchesCaseAndBytes) {
  auto a = artifact("abc");
  auto id = insert_artifact(db(), a);
  ASSERT_TRUE(id);
  auto hit = find_artifact(db(), run_id_, a.case_ref, a.sha256);
  ASSERT_TRUE(hit && *hit);
  EXPECT_EQ((*hit)->id, *id);
  auto other_bytes = find_artifact(db(), run_id_, a.case_ref, sha256_hex("abd"));
  ASSERT_TRUE(other_bytes);
  EXPECT_FALSE(*other_bytes);
  auto other_case = a.case_ref;
  other_case.mode = "training";
  auto miss = find_artifact(db(), run_id_, other_case, a.sha256);
  ASSERT_TRUE(miss);
  EXPECT_FALSE(*miss);
}

TEST_F(ArtifactStoreTest, CaseArtifactsAreOldestFirstAndOnlyOfThatCase) {
  auto first = insert_artifact(db(), artifact("one"));
  auto second = insert_artifact(db(), artifact("two"));
  ASSERT_TRUE(insert_artifact(db(), artifact("three", "Electra")));
  ASSERT_TRUE(first && second);
  auto list = case_artifacts(db(), run_id_, {"huggingface", "bfloat16", "inference", "Bert", ""});
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, *first);
  EXPECT_EQ((*list)[1].id, *second);
  auto other_config = case_artifacts(db(), run_id_, {"huggingface", "bfloat16", "inference", "Bert", "cpp_wrapper"});
  ASSERT_TRUE(other_config);
  EXPECT_TRUE(other_config->empty());
}

TEST_F(ArtifactStoreTest, RunFindingsCarryTheFindingsArrayOnly) {
  ASSERT_TRUE(insert_artifact(db(), artifact("one")));
  auto list = run_artifact_findings(db(), run_id_);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].case_ref.model, "Bert");
  EXPECT_EQ((*list)[0].findings_json.find("census"), std::string::npos);
  EXPECT_NE((*list)[0].findings_json.find("math_fallback"), std::string::npos);
}

TEST_F(ArtifactStoreTest, UnknownIdIsNullopt) {
  auto rec = get_artifact(db(), 42);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(*rec);
  auto bytes = artifact_bytes(db(), 42);
  ASSERT_TRUE(bytes);
  EXPECT_FALSE(*bytes);
}

TEST_F(ArtifactStoreTest, DeletingTheRunDeletesItsArtifacts) {
  ASSERT_TRUE(insert_artifact(db(), artifact("one")));
  ASSERT_TRUE(db().exec("DELETE FROM runs WHERE key = 'run-a'"));
  auto st = Statement::prepare(db(), "SELECT count(*) FROM artifacts");
  ASSERT_TRUE(st && *st->step());
  EXPECT_EQ(st->int64(0), 0);
}

TEST_F(ArtifactStoreTest, CompressionOtherThanDeflateOrGzipIsRejectedBySchema) {
  auto r = db().exec(
      "INSERT INTO artifacts(run_id, suite, dtype, mode, model, name, kind, sha256, size, compression, findings, "
      "created_at) VALUES(1, 's', 'd', 'm', 'x', 'n', 'k', 'h', 1, 'zstd', '{}', 'now')");
  EXPECT_FALSE(r);
}

}  // namespace
}  // namespace perftriage::schema
