#pragma once
// What every handler can reach: the settings and a pool of store connections
// (one SQLite connection per concurrent request; WAL lets readers run beside a writer).
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/result.hpp"
#include "schema/sqlite.hpp"
#include "schema/store.hpp"
#include "server/app/observability.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

class AppContext;

// A store borrowed from the pool, returned when this goes out of scope.
class StoreLease {
 public:
  StoreLease(AppContext* app, std::unique_ptr<schema::Store> store) : app_(app), store_(std::move(store)) {}
  StoreLease(StoreLease&&) noexcept = default;
  StoreLease& operator=(StoreLease&&) = delete;
  StoreLease(const StoreLease&) = delete;
  StoreLease& operator=(const StoreLease&) = delete;
  ~StoreLease();
  schema::Store& operator*() { return *store_; }
  schema::Store* operator->() { return store_.get(); }

 private:
  AppContext* app_;
  std::unique_ptr<schema::Store> store_;
};

class AppContext {
 public:
  explicit AppContext(Settings settings) : settings_(std::move(settings)), obs_(settings_.access_log) {}
  [[nodiscard]] const Settings& settings() const noexcept { return settings_; }
  // Thread-safe and not part of the application state: reachable from a const context (handlers take one).
  [[nodiscard]] Observability& obs() const noexcept { return obs_; }
  Result<StoreLease> store();  // opens a new connection when the pool is empty
  // The data generation: moves whenever a write commits, through this process's pool or from another process on the
  // same file (`perftriage ingest --db`), read from PRAGMA data_version on a connection that only watches and never
  // writes. A cached answer is good only while the generation it was made under is still current. nullopt when it
  // cannot be known, and nothing may be cached: a ":memory:" database (every connection is a database of its own),
  // or a watcher that cannot open or read.
  std::optional<std::uint64_t> generation();

 private:
  friend class StoreLease;
  void give_back(std::unique_ptr<schema::Store> store);
  Settings settings_;
  mutable Observability obs_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<schema::Store>> idle_;
  std::mutex watch_mutex_;
  std::optional<schema::Database> watcher_;
  std::optional<schema::Statement> data_version_;  // prepared once on the watcher (destroyed before it)
  std::int64_t last_version_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace perftriage::server
