#include "server/app/app_context.hpp"

namespace perftriage::server {

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

void AppContext::give_back(std::unique_ptr<schema::Store> store) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
}

}  // namespace perftriage::server
