#include "server/http/client_limiter.hpp"

namespace perftriage::server {

std::shared_ptr<ClientLimiter::Slot> ClientLimiter::try_enter(const std::string& client) {
  {
    std::lock_guard lock(mutex_);
    auto& count = held_[client];
    if (count >= per_client_) {
      if (count == 0) held_.erase(client);
      return nullptr;
    }
    ++count;
  }
  return std::make_shared<Slot>(shared_from_this(), client);
}

void ClientLimiter::leave(const std::string& client) {
  std::lock_guard lock(mutex_);
  auto it = held_.find(client);
  if (it == held_.end()) return;
  if (--it->second == 0) held_.erase(it);
}

std::size_t ClientLimiter::held(const std::string& client) const {
  std::lock_guard lock(mutex_);
  auto it = held_.find(client);
  return it == held_.end() ? 0 : it->second;
}

std::size_t ClientLimiter::clients() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

std::string client_key(const std::string& token_name, const std::string& remote) {
  return token_name.empty() ? "addr:" + remote : "token:" + token_name;
}

}  // namespace perftriage::server
