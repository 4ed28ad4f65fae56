#pragma once
// What every handler can reach: the settings and a pool of store connections
// (one SQLite connection per concurrent request; WAL lets readers run beside a writer).
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"
#include "schema/wal_index.hpp"
#include "schema/store.hpp"
#include "server/app/observability.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

class AppContext;

// What the data looked like at one moment, for the response cache: `generation` moves with every committed write
// (anything at all), `top` is the global data stamp (migration 011), which moves only with writes that change
// results. An answer computed after this view was taken saw at least this much.
struct DataView {
  std::uint64_t generation = 0;
  std::int64_t top = 0;
};

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
  // The generation and the data stamps together, brought up to date first (the stamps are read again only when
  // the generation moved). nullopt as for generation().
  std::optional<DataView> data_view();
  // The newest stamp among `scopes` (schema/data_stamps.hpp) as of the last data_view(); 0 for scopes never written.
  // An answer that read only these scopes, computed after a view whose `top` is at least this, is still current.
  std::int64_t newest_stamp(const std::vector<std::string>& scopes);

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
  std::optional<schema::Statement> stamps_since_;  // prepared once on the watcher
  std::optional<schema::WalIndexProbe> probe_;     // the -shm header through the watcher (destroyed before it)
  bool data_version_ok_ = false;
  std::int64_t last_version_ = 0;
  std::uint64_t generation_ = 0;
  std::int64_t top_ = 0;
  bool stamps_known_ = false;  // false: the stamps could not be read (a database without migration 011)
  std::unordered_map<std::string, std::int64_t> stamps_;
};

}  // namespace perftriage::server
