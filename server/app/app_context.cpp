#include "server/app/app_context.hpp"

#include <algorithm>
#include <cstdint>

#include "schema/data_stamps.hpp"
#include "schema/wal_index.hpp"

namespace perftriage::server {
namespace {

constexpr int kWatcherBusyMs = 100;

}  // namespace

StoreLease::~StoreLease() {
  if (app_ && store_) app_->give_back(std::move(store_));
}

Result<StoreLease> AppContext::store() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      return StoreLease(this, std::move(s));
    }
  }
  PT_ASSIGN(auto opened, schema::Store::open(settings_.db_path));
  return StoreLease(this, std::make_unique<schema::Store>(std::move(opened)));
}

std::optional<std::uint64_t> AppContext::generation() {
  const auto view = data_view();
  if (!view) return std::nullopt;
  return view->generation;
}

std::optional<DataView> AppContext::data_view() {
  const std::string& path = settings_.db_path;
  if (path.empty() || path == ":memory:" || path.find("mode=memory") != std::string::npos) return std::nullopt;
  std::lock_guard lock(watch_mutex_);
  if (!watcher_) {
    // A short busy timeout: this runs on the I/O threads, and a lookup that cannot tell is only a miss.
    auto opened = schema::Database::open(path, kWatcherBusyMs);
    if (!opened) return std::nullopt;
    watcher_.emplace(std::move(*opened));
  }
  // Nothing committed since the last look (the wal-index header is as it was): the view stands, no system call.
  if (probe_ && generation_ != 0 && data_version_ok_ && !probe_->changed()) {
    return DataView{generation_, stamps_known_ ? top_ : -1};
  }
  const auto version = schema::data_version(*watcher_, data_version_);
  data_version_ok_ = static_cast<bool>(version);
  if (!version) {
    if (!watcher_->usable()) {  // a lost PostgreSQL connection: its statements first, then a new one next time
      data_version_.reset();
      stamps_since_.reset();
      probe_.reset();  // it reads through the watcher
      watcher_.reset();
    }
    return std::nullopt;
  }
  // The watcher holds the file open now. Its first look reports a change: the next call asks SQLite once more,
  // with the header read before it.
  if (!probe_ && watcher_->dialect() == schema::Dialect::sqlite) {  // PostgreSQL has no file to probe
    if (auto opened = schema::WalIndexProbe::open(*watcher_)) probe_.emplace(std::move(*opened));
  }
  if (generation_ == 0 || *version != last_version_) {
    last_version_ = *version;
    ++generation_;
    // Read after the version: a write committed in between is in the stamps now and moves the version again.
    auto changed = schema::stamps_since(*watcher_, top_, stamps_since_);
    stamps_known_ = static_cast<bool>(changed);
    if (changed) {
      for (auto& [scope, stamp] : *changed) {
        if (scope == schema::kStampAll) top_ = std::max(top_, stamp);
        stamps_[std::move(scope)] = stamp;
      }
    }
  }
  return DataView{generation_, stamps_known_ ? top_ : -1};
}

std::int64_t AppContext::newest_stamp(const std::vector<std::string>& scopes) {
  std::lock_guard lock(watch_mutex_);
  if (!stamps_known_) return INT64_MAX;  // nothing can be shown current by stamps
  std::int64_t newest = 0;
  for (const auto& scope : scopes) {
    const auto it = stamps_.find(scope);
    if (it != stamps_.end()) newest = std::max(newest, it->second);
  }
  return newest;
}

void AppContext::give_back(std::unique_ptr<schema::Store> store) {
  if (!store->db().usable()) return;  // a lost PostgreSQL connection: the next lease opens a new one
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
}

}  // namespace perftriage::server
