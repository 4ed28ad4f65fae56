#pragma once
// Boost.Beast HTTP/1.1 server: an acceptor with a connection cap, a strand per connection, a fresh parser per request
// with header and body limits, header / body / idle / write timeouts, large bodies spooled to an unlinked temporary
// file and mapped, and the Router for everything else. SIGTERM / SIGINT drain the requests in progress (bounded).
// Every limit is a [limits] setting (server/app/settings.hpp, docs/limits.md).
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
