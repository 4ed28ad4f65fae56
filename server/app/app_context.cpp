#include "server/app/app_context.hpp"

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
  const std::string& path = settings_.db_path;
  if (path.empty() || path == ":memory:" || path.find("mode=memory") != std::string::npos) return std::nullopt;
  std::lock_guard lock(watch_mutex_);
  if (!watcher_) {
    // A short busy timeout: this runs on the I/O threads, and a lookup that cannot tell is only a miss.
    auto opened = schema::Database::open(path, kWatcherBusyMs);
    if (!opened) return std::nullopt;
    watcher_.emplace(std::move(*opened));
  }
  const auto version = schema::data_version(*watcher_, data_version_);
  if (!version) return std::nullopt;
  if (generation_ == 0 || *version != last_version_) {
    last_version_ = *version;
    ++generation_;
  }
  return generation_;
}

void AppContext::give_back(std::unique_ptr<schema::Store> store) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
}

}  // namespace perftriage::server
