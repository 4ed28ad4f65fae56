#pragma once
// One connection, from accept to close (server/http/session.cpp): it reads a request's head and body within the
// limits, asks the head's questions (server/http/admission.hpp), hands the request to the response cache or a work
// pool, and writes the answer; then waits for the next request on the same connection. The listener
// (server/http/http_server.cpp) makes sessions and tells them when the server drains.
#include <atomic>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>

#include "server/http/client_limiter.hpp"
#include "server/http/response_cache.hpp"
#include "server/http/router.hpp"
#include "server/http/wire.hpp"
#include "server/http/work_pool.hpp"

namespace perftriage::server::transport {

class Session;

// The pools a request may run in, and the cache in front of the read pool.
struct Pools {
  WorkPool& read;
  WorkPool& heavy;
  WorkPool& compute;
  ClientLimiter& per_client;  // the compute pool's share per client
  ResponseCache& cache;
};

// What the acceptor and every session share: the count of open connections (the cap) and the drain.
struct Hub {
  std::atomic<std::size_t> open{0};
  std::atomic<bool> draining{false};
  std::mutex mutex;
  std::list<std::weak_ptr<Session>> sessions;
  std::function<void()> on_drained;  // called when the last connection closes while draining
};

// Serves an accepted connection on the socket's own executor until it closes.
void start_session(tcp::socket&& socket, AppContext& app, const Router& router, Pools pools, std::shared_ptr<Hub> hub);

// The server is draining (hub.draining is set): a connection waiting for a request is closed now; one with a request
// in progress finishes it and closes after the response.
void drain_sessions(Hub& hub);

}  // namespace perftriage::server::transport
