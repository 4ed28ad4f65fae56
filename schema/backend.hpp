#pragma once
// The storage seam: what one engine's connection and prepared statement do. Database and Statement
// (schema/database.hpp) hold one of these each and forward to it; schema/sqlite.* and schema/postgres.* are the two
// implementations, chosen by Database::open from the path. Nothing outside those files names an engine's C API
// (CTest `layers` checks it), so a store function reads the same on both and differs only where its SQL text does.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace perftriage::schema {

enum class Dialect { sqlite, postgres };

class StatementBackend {
 public:
  StatementBackend() = default;
  StatementBackend(const StatementBackend&) = delete;
  StatementBackend& operator=(const StatementBackend&) = delete;
  virtual ~StatementBackend() = default;

  // Parameters are numbered as the text names them ($1, $2, ...), from 1. `copy` false: the caller keeps the bytes
  // alive until the statement is stepped and reset (an engine that copies anyway may ignore it).
  virtual void bind_int(int i, std::int64_t v) = 0;
  virtual void bind_real(int i, double v) = 0;
  virtual void bind_text(int i, std::string_view v, bool copy) = 0;
  virtual void bind_blob(int i, std::string_view v, bool copy) = 0;
  virtual void bind_null(int i) = 0;
  virtual Result<bool> step() = 0;
  virtual void rewind() noexcept = 0;  // back to before the first step; the bindings stay
  virtual void clear() noexcept = 0;   // rewind, and every parameter NULL again

  [[nodiscard]] virtual bool is_null(int col) const noexcept = 0;
  [[nodiscard]] virtual std::int64_t int64(int col) const noexcept = 0;
  [[nodiscard]] virtual double real(int col) const noexcept = 0;
  [[nodiscard]] virtual std::string_view text(int col) const noexcept = 0;  // valid until the next step/rewind
  [[nodiscard]] virtual std::string blob(int col) const = 0;
};

class Connection {
 public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  virtual ~Connection() = default;

  [[nodiscard]] virtual Dialect dialect() const noexcept = 0;
  virtual Result<void> exec(std::string_view sql) = 0;  // one or more statements, no results
  virtual Result<std::unique_ptr<StatementBackend>> prepare(std::string_view sql) = 0;
  [[nodiscard]] virtual int changes() const noexcept = 0;  // rows changed by the last statement
  [[nodiscard]] virtual bool in_transaction() const noexcept = 0;
  [[nodiscard]] virtual bool usable() const noexcept = 0;
  [[nodiscard]] virtual Error error(std::string_view what) const = 0;
  virtual void set_busy_timeout(int ms) noexcept = 0;
  // `write`: the transaction will write, so it takes the engine's write lock up front (Transaction says why).
  virtual Result<void> begin(bool write) = 0;
  virtual Result<void> commit(bool write) = 0;
  virtual void rollback() noexcept = 0;
  // A query whose one value changes whenever another connection has committed (data_version).
  [[nodiscard]] virtual std::string_view data_version_sql() const noexcept = 0;
};

}  // namespace perftriage::schema
