// API tokens (schema/token_store.hpp) and the audit log (schema/audit_store.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "schema/audit_store.hpp"
#include "schema/store.hpp"
#include "schema/token_store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

class TokenStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  NewToken create(const std::string& name, std::vector<std::string> scopes,
                  std::optional<std::string> expires = std::nullopt) {
    auto t = create_token(store_->db(), name, scopes, std::move(expires));
    EXPECT_TRUE(t) << t.error().message;
    return t ? *t : NewToken{};
  }
  TokenStatus status(std::string_view token) {
    auto c = verify_token(store_->db(), token, iso8601_from_now(0));
    EXPECT_TRUE(c) << c.error().message;
    return c ? c->status : TokenStatus::unknown;
  }
  // Every byte of every column of api_tokens, as text.
  std::string table_bytes() {
    auto st = Statement::prepare(
        store_->db(),
        dialect_sql(
            store_->db(), "SELECT name || token_id || hex(salt) || hex(hash) || salt || hash || scopes FROM api_tokens",
            "SELECT name || token_id || encode(salt, 'hex') || encode(hash, 'hex') || encode(salt, 'escape') || "
            "encode(hash, 'escape') || scopes FROM api_tokens"));
    EXPECT_TRUE(st);
    std::string all;
    while (true) {
      auto row = st->step();
      if (!row || !*row) break;
      all += st->blob(0);
    }
    return all;
  }
  std::optional<Store> store_;
};

TEST_F(TokenStoreTest, TokenHasTheDocumentedShapeAndVerifies) {
  auto t = create("ci-bmg", {"upload"});
  ASSERT_EQ(t.token.size(), 3u + 16 + 1 + 64);
  EXPECT_EQ(t.token.substr(0, 3), "pt_");
  EXPECT_EQ(t.token.substr(3, 16), t.info.token_id);
  EXPECT_EQ(t.token[19], '_');
  auto c = verify_token(store_->db(), t.token, iso8601_from_now(0));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, TokenStatus::ok);
  EXPECT_EQ(c->info.name, "ci-bmg");
  EXPECT_EQ(c->info.scopes, std::vector<std::string>{"upload"});
  EXPECT_EQ(c->info.expires_at, "");
}

TEST_F(TokenStoreTest, TheSecretIsNeverStored) {
  auto t = create("a", {"admin"});
  const std::string secret = t.token.substr(20);
  const std::string all = table_bytes();
  EXPECT_EQ(all.find(secret), std::string::npos);
  EXPECT_EQ(all.find(t.token), std::string::npos);
  // The salt is random per token: two tokens never share a salt or a hash.
  create("b", {"admin"});
  auto st = Statement::prepare(store_->db(),
                               "SELECT count(DISTINCT salt), count(DISTINCT hash), "
                               "max(length(salt)), max(length(hash)) FROM api_tokens");
  ASSERT_TRUE(st);
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->int64(0), 2);
  EXPECT_EQ(st->int64(1), 2);
  EXPECT_EQ(st->int64(2), 16);
  EXPECT_EQ(st->int64(3), 32);  // SHA-256
}

TEST_F(TokenStoreTest, WrongSecretMalformedAndUnknownAreRefused) {
  auto t = create("a", {"read"});
  std::string wrong = t.token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_EQ(status(wrong), TokenStatus::unknown);
  EXPECT_EQ(status("pt_0123456789abcdef_" + std::string(64, 'a')), TokenStatus::unknown);
  EXPECT_EQ(status(""), TokenStatus::malformed);
  EXPECT_EQ(status("not-a-token"), TokenStatus::malformed);
  EXPECT_EQ(status(t.token + "0"), TokenStatus::malformed);
  std::string upper = t.token;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(status(upper), TokenStatus::malformed);
}

TEST_F(TokenStoreTest, RevokeKeepsTheRowAndRefusesTheToken) {
  auto t = create("ci", {"upload", "read"});
  auto r = revoke_token(store_->db(), "ci");
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  EXPECT_EQ(status(t.token), TokenStatus::revoked);
  auto again = revoke_token(store_->db(), "ci");
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);  // nothing active by that name
  auto missing = revoke_token(store_->db(), "nobody");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);
  auto list = list_tokens(store_->db());
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_FALSE(list->front().revoked_at.empty());
  // A revoked token's name stays taken: the audit log refers to tokens by name.
  auto reused = create_token(store_->db(), "ci", {"read"}, std::nullopt);
  ASSERT_FALSE(reused);
  EXPECT_EQ(reused.error().code, "token_name_taken");
}

TEST_F(TokenStoreTest, ExpiryIsComparedWithNow) {
  auto past = create("old", {"read"}, iso8601_from_now(-1));
  auto future = create("new", {"read"}, iso8601_from_now(3600));
  EXPECT_EQ(status(past.token), TokenStatus::expired);
  EXPECT_EQ(status(future.token), TokenStatus::ok);
  auto later = verify_token(store_->db(), future.token, iso8601_from_now(7200));
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, TokenStatus::expired);
}

TEST_F(TokenStoreTest, ListNeverCarriesSecretsAndTouchRecordsUse) {
  auto t = create("ci", {"upload"});
  ASSERT_TRUE(touch_token(store_->db(), t.info.id, "2026-01-01T00:00:00Z"));
  auto list = list_tokens(store_->db());
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front().last_used_at, "2026-01-01T00:00:00Z");
  const std::string json = to_json(list->front()).dump();
  EXPECT_EQ(json.find(t.token.substr(20)), std::string::npos);
  EXPECT_EQ(json.find("hash"), std::string::npos);
  EXPECT_EQ(json.find("salt"), std::string::npos);
}

TEST(TokenTouch, NeverWaitsForTheWriteLock) {
  const auto path =
      std::filesystem::temp_directory_path() / ("perftriage-token-touch-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  {
    auto writer = Store::open(path.string());
    ASSERT_TRUE(writer) << writer.error().message;
    auto t = create_token(writer->db(), "ci", {"upload"}, std::nullopt);
    ASSERT_TRUE(t);
    auto reader = Store::open(path.string());
    ASSERT_TRUE(reader);
    ASSERT_EQ(reader->db().busy_timeout_ms(), 5000);
    auto held = Transaction::begin(writer->db());  // another connection holds the write lock
    ASSERT_TRUE(held);
    const auto started = std::chrono::steady_clock::now();
    auto touched = touch_token(reader->db(), t->info.id, "2026-01-01T00:00:00Z");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2)) << "waited for the lock";
    ASSERT_FALSE(touched);
    EXPECT_EQ(touched.error().code, "db_busy");
    EXPECT_EQ(reader->db().busy_timeout_ms(), 5000) << "the connection's own timeout is restored";
    held->rollback();
    EXPECT_TRUE(touch_token(reader->db(), t->info.id, "2026-01-01T00:00:00Z"));
  }
  std::filesystem::remove(path);
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

TEST_F(TokenStoreTest, NamesAreValidated) {
  for (const char* bad : {"", "has space", "semi;colon", "new\nline", "quote\""}) {
    auto t = create_token(store_->db(), bad, {"read"}, std::nullopt);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().code, "bad_token_name");
  }
  EXPECT_FALSE(create_token(store_->db(), std::string(65, 'a'), {"read"}, std::nullopt));
  EXPECT_TRUE(create_token(store_->db(), "ci-bmg.nightly:2@team_x", {"read"}, std::nullopt));
}

TEST(TokenScopes, ParsedValidatedDeduplicatedInCanonicalOrder) {
  auto s = parse_token_scopes({"admin", "read,upload", "read"});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (std::vector<std::string>{"read", "upload", "admin"}));
  auto spaced = parse_token_scopes({"bot triage"});
  ASSERT_TRUE(spaced);
  EXPECT_EQ(*spaced, (std::vector<std::string>{"triage", "bot"}));
  auto bad = parse_token_scopes({"read,write"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "unknown_scope");
  EXPECT_NE(bad.error().message.find("'write'"), std::string::npos);
  EXPECT_EQ(parse_token_scopes({}).error().code, "no_scope");
  EXPECT_EQ(parse_token_scopes({","}).error().code, "no_scope");
  EXPECT_FALSE(parse_token_scopes({"Admin"}));  // case matters
}

TEST(TokenScopes, AdminImpliesEveryScope) {
  const std::vector<std::string> admin{"admin"}, upload{"upload"}, read_triage{"read", "triage"};
  for (const char* s : {"read", "upload", "triage", "bot", "admin"}) EXPECT_TRUE(token_grants(admin, s)) << s;
  EXPECT_TRUE(token_grants(upload, "upload"));
  EXPECT_FALSE(token_grants(upload, "read"));  // scopes are independent, except admin
  EXPECT_FALSE(token_grants(upload, "admin"));
  EXPECT_TRUE(token_grants(read_triage, "triage"));
  EXPECT_FALSE(token_grants(read_triage, "bot"));
  EXPECT_FALSE(token_grants({}, "read"));
}

TEST(TokenLifetime, UnitsAndNever) {
  EXPECT_EQ(*parse_token_lifetime("90d"), std::optional<std::int64_t>(90 * 86400));
  EXPECT_EQ(*parse_token_lifetime("12h"), std::optional<std::int64_t>(12 * 3600));
  EXPECT_EQ(*parse_token_lifetime("30m"), std::optional<std::int64_t>(1800));
  EXPECT_EQ(*parse_token_lifetime("45s"), std::optional<std::int64_t>(45));
  EXPECT_EQ(*parse_token_lifetime("never"), std::nullopt);
  for (const char* bad : {"0d", "-1d", "d", "90", "1y", "1.5d", "90 d", "99999999999d"}) {
    auto r = parse_token_lifetime(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, "bad_expiry");
  }
}

TEST(AuditLog, AppendsAndListsNewestFirst) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s);
  ASSERT_TRUE(append_audit(s->db(), "cli:alice", "token.create", "ci", R"({"scopes":["upload"]})"));
  ASSERT_TRUE(append_audit(s->db(), "cli:alice", "token.revoke", "ci", ""));
  auto all = list_audit(s->db());
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].action, "token.revoke");
  EXPECT_EQ((*all)[0].detail, "{}");
  EXPECT_EQ((*all)[1].actor, "cli:alice");
  EXPECT_EQ(to_json((*all)[1])["detail"]["scopes"][0], "upload");
  auto creates = list_audit(s->db(), "token.create");
  ASSERT_TRUE(creates);
  EXPECT_EQ(creates->size(), 1u);
}

}  // namespace
}  // namespace perftriage::schema
