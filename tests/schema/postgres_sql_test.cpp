// How one statement text of the store becomes PostgreSQL's (schema/postgres.hpp): no server needed.
#include <gtest/gtest.h>

#include "schema/postgres.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {
namespace {

TEST(ToPostgres, NumbersParametersAsSqliteDoes) {
  int n = 0;
  EXPECT_EQ(to_postgres("SELECT ?1, ?3, ?", &n), "SELECT $1, $3, $4");
  EXPECT_EQ(n, 4);
  EXPECT_EQ(to_postgres("VALUES(?, ?, ?2)", &n), "VALUES($1, $2, $2)");
  EXPECT_EQ(n, 2);
}

TEST(ToPostgres, LeavesQuotedTextAlone) {
  int n = 0;
  EXPECT_EQ(to_postgres("SELECT '?1', \"a?\" , ? FROM t WHERE x = 'rowid LIMIT ?'", &n),
            "SELECT '?1', \"a?\" , $1 FROM t WHERE x = 'rowid LIMIT ?'");
  EXPECT_EQ(n, 1);
}

TEST(ToPostgres, RewritesTheIdiomsNoFunctionCanStandFor) {
  EXPECT_EQ(to_postgres("DELETE FROM f WHERE id IN (SELECT value FROM json_each(?1))"),
            "DELETE FROM f WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text($1))");
  EXPECT_EQ(to_postgres("ORDER BY at DESC, rowid DESC LIMIT ?2"),
            "ORDER BY at DESC, ctid DESC LIMIT nullif(greatest($2, -1), -1)");
  EXPECT_EQ(to_postgres("SELECT my_rowid, rowids FROM t"), "SELECT my_rowid, rowids FROM t");  // whole words only
  EXPECT_EQ(to_postgres("FROM cases c CROSS JOIN runs r CROSS JOIN result_rows x ON x.run_id = r.id WHERE 1"),
            "FROM cases c CROSS JOIN runs r JOIN result_rows x ON x.run_id = r.id WHERE 1");
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
