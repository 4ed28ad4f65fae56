#pragma once
// What every handler can reach: the settings and a pool of store connections
// (one SQLite connection per concurrent request; WAL lets readers run beside a writer).
#include <memory>
#include <mutex>
#include <vector>

#include "common/result.hpp"
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

 private:
  friend class StoreLease;
  void give_back(std::unique_ptr<schema::Store> store);
  Settings settings_;
  mutable Observability obs_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<schema::Store>> idle_;
};

}  // namespace perftriage::server
