#pragma once
// How many requests each client has running or waiting in a pool, with a cap per client. The compute pool takes
// work from anyone who may read; without a cap, one client with a loop fills its queue and everyone else is told
// to come back later. A client is its token's name when it sent one, else its address.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace perftriage::server {

// Made with std::make_shared: a slot keeps its limiter alive, so a connection that outlives the server's pools (its
// io_context goes last) still gives its slot back to something.
class ClientLimiter : public std::enable_shared_from_this<ClientLimiter> {
 public:
  // Held while the request is queued or running; the count goes down when the last copy goes.
  class Slot {
   public:
    Slot(std::shared_ptr<ClientLimiter> owner, std::string client)
        : owner_(std::move(owner)), client_(std::move(client)) {}
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { owner_->leave(client_); }

   private:
    std::shared_ptr<ClientLimiter> owner_;
    std::string client_;
  };

  explicit ClientLimiter(std::size_t per_client) : per_client_(per_client) {}

  // A slot for `client`, or nullptr when it already holds `per_client` of them.
  std::shared_ptr<Slot> try_enter(const std::string& client);
  [[nodiscard]] std::size_t per_client() const noexcept { return per_client_; }
  [[nodiscard]] std::size_t held(const std::string& client) const;
  [[nodiscard]] std::size_t clients() const;

 private:
  void leave(const std::string& client);
  std::size_t per_client_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> held_;  // only clients holding a slot: bounded by the pool's size
};

// "token:NAME" for a request that named a valid token, else "addr:ADDRESS".
std::string client_key(const std::string& token_name, const std::string& remote);

}  // namespace perftriage::server
