#pragma once
// A store test's fixture: a store of its own for each test (SQLite in memory; under `pg:` a PostgreSQL schema of its
// own, tests/support/test_db.hpp), and a helper that runs a step in a committed write transaction.
#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing_support {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_test_store();
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_.emplace(std::move(*s));
  }
  schema::Database& db() { return store_->db(); }
  // f() inside a write transaction that commits; f's result.
  template <class F>
  auto in_tx(F&& f) {
    auto tx = schema::Transaction::begin(db());
    EXPECT_TRUE(tx.ok());
    auto r = f();
    EXPECT_TRUE(tx->commit().ok());
    return r;
  }
  std::optional<schema::Store> store_;
};

}  // namespace perftriage::testing_support
