// How a statement's `$N` parameters reach each engine (schema/backend.hpp): the numbers the text names, in any
// order, skipping some, bound by number. The SQLite half needs no server; the same statements run on PostgreSQL
// under `pg:` (PERFTRIAGE_TEST_PG).
#include <gtest/gtest.h>

#include "schema/database.hpp"
#include "schema/postgres.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

TEST(PostgresParameters, NamesTheNumbersTheTextUses) {
  EXPECT_EQ(postgres_parameters("SELECT $1, $3"), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(postgres_parameters("VALUES($2, $2, $10)").size(), 11u);
  EXPECT_TRUE(postgres_parameters("VALUES($2, $2, $10)")[10]);
  EXPECT_EQ(postgres_parameters("SELECT 1"), (std::vector<bool>{false}));
}

TEST(PostgresParameters, LeavesQuotedTextAlone) {
  EXPECT_EQ(postgres_parameters("SELECT '$1', \"a$2\", $3 FROM t WHERE x = 'LIMIT $4'"),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(postgres_parameters("SELECT $ FROM t"), (std::vector<bool>{false}));  // a lone $ is no parameter
}

Result<std::string> row_of(Database& db, std::string_view sql, const std::vector<std::pair<int, std::string>>& binds) {
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  for (const auto& [i, v] : binds) st.bind(i, v);
  PT_ASSIGN(const bool row, st.step());
  if (!row) return std::string("no row");
  std::string out;
  for (int c = 0; c < 3 && !st.is_null(c); ++c) out += (c ? "," : "") + st.text(c);
  return out;
}

class Parameters : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Database::open(testing_support::fresh_test_db());
    ASSERT_TRUE(opened) << opened.error().message;
    db_.emplace(std::move(*opened));
  }
  std::optional<Database> db_;
};

TEST_F(Parameters, BindByTheNumberTheTextNames) {
  auto out = row_of(*db_, "SELECT CAST($2 AS TEXT), CAST($1 AS TEXT), CAST($2 AS TEXT)", {{1, "a"}, {2, "b"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, "b,a,b");
}

TEST_F(Parameters, NumbersTheTextSkipsAreIgnored) {
  auto out = row_of(*db_, "SELECT CAST($3 AS TEXT), CAST($1 AS TEXT)", {{1, "x"}, {2, "unused"}, {3, "z"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, "z,x");
}

TEST_F(Parameters, QuotedDollarsAreText) {
  auto out = row_of(*db_, "SELECT '$1', CAST($1 AS TEXT)", {{1, "v"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, "$1,v");
}

TEST_F(Parameters, NegativeLimitMeansNone) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t (x INTEGER)"));
  ASSERT_TRUE(db_->exec("INSERT INTO t VALUES (1), (2), (3)"));
  for (const auto& [limit, want] : std::vector<std::pair<std::int64_t, std::int64_t>>{{-1, 3}, {2, 2}, {0, 0}}) {
    auto st = Statement::prepare(*db_, "SELECT count(*) FROM (SELECT x FROM t LIMIT $1) s");
    ASSERT_TRUE(st);
    st->bind(1, sql_limit(limit));
    auto n = scalar(*st);
    ASSERT_TRUE(n) << n.error().message;
    EXPECT_EQ(*n, want) << "limit " << limit;
  }
}

TEST(PrintableDbPath, HidesPasswordsOnly) {
  EXPECT_EQ(printable_db_path("var/perftriage.sqlite"), "var/perftriage.sqlite");
  EXPECT_EQ(printable_db_path("postgresql://pt:s3cret@db/pt"), "postgresql://pt:***@db/pt");
  EXPECT_EQ(printable_db_path("postgresql://pt@db/pt?password=s3cret&sslmode=require"),
            "postgresql://pt@db/pt?password=***&sslmode=require");
  EXPECT_EQ(printable_db_path("postgresql://db:5432/pt"), "postgresql://db:5432/pt");
}

TEST(PostgresUrl, OnlyLibpqUrlsSelectPostgres) {
  EXPECT_TRUE(is_postgres_url("postgresql://u@h/d"));
  EXPECT_TRUE(is_postgres_url("postgres://u@h/d"));
  EXPECT_FALSE(is_postgres_url("file:x.db?mode=memory"));
  EXPECT_FALSE(is_postgres_url("postgresql.sqlite"));
}

}  // namespace
}  // namespace perftriage::schema
