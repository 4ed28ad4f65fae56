#pragma once
// Boost.Beast HTTP/1.1 server: an acceptor, a strand per connection, a fresh parser per request
// with header and body limits, and the Router for everything else.
#include <memory>
#include <string>

#include "common/result.hpp"
#include "server/app_context.hpp"
#include "server/router.hpp"

namespace perftriage::server {

class HttpServer {
 public:
  HttpServer(AppContext& app, const Router& router);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting; port 0 picks a free port. Returns the bound port.
  Result<unsigned short> listen(const std::string& host, unsigned short port);
  // Runs the I/O loop on `threads` threads until stop() or SIGINT/SIGTERM.
  void run(unsigned threads);
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perftriage::server
