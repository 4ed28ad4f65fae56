#pragma once
// Boost.Beast HTTP/1.1 server, in three parts: this listener (accept with a connection cap and a back-off when out of
// descriptors, one io_context per I/O thread, the drain on SIGTERM / SIGINT), the session of each connection
// (server/http/session.hpp: read within the limits, admit, dispatch, write), and the steps it calls in order
// (admission.hpp, response_cache.hpp, work_pool.hpp, spool.hpp, wire.hpp). Every limit is a [limits] setting
// (server/app/settings.hpp, docs/limits.md).
#include <memory>
#include <string>

#include "common/result.hpp"
#include "server/app/app_context.hpp"
#include "server/http/router.hpp"

namespace perftriage::server {

class HttpServer {
 public:
  HttpServer(AppContext& app, const Router& router);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting; port 0 picks a free port. Returns the bound port.
  Result<unsigned short> listen(const std::string& host, unsigned short port);
  // Runs the I/O loop on `threads` threads until stop(), or until SIGINT / SIGTERM and the drain: no new connections,
  // connections waiting for a request closed, requests in progress finished (at most [limits] drain_timeout_s).
  void run(unsigned threads);
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perftriage::server
