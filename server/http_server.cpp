#include "server/http_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

namespace perftriage::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

void fail(beast::error_code ec, const char* what) {
  // Peers closing or timing out are routine; anything else is worth a line.
  if (ec == asio::error::operation_aborted || ec == beast::error::timeout || ec == asio::error::eof ||
      ec == http::error::end_of_stream || ec == asio::error::connection_reset) {
    return;
  }
  std::cerr << "perftriage: " << what << ": " << ec.message() << "\n";
}

ApiRequest to_api_request(const http::request<http::string_body>& req) {
  ApiRequest out;
  out.method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const auto qpos = target.find('?');
  out.path = std::string(target.substr(0, qpos));
  if (qpos != std::string_view::npos) out.query = parse_query(target.substr(qpos + 1));
  for (const auto& field : req) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    out.headers[name] = std::string(field.value());
  }
  out.body = req.body();
  return out;
}

http::response<http::string_body> to_http_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  http::response<http::string_body> res{static_cast<http::status>(api.status), version};
  res.set(http::field::server, "perftriage");
  res.set(http::field::content_type, api.content_type);
  for (auto& [name, value] : api.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  const auto size = api.body.size();
  if (!head) res.body() = std::move(api.body);
  res.content_length(size);
  return res;
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, AppContext& app, const Router& router)
      : stream_(std::move(socket)), app_(app), router_(router) {}

  void start() {
    asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();  // a fresh parser per request
    parser_->header_limit(static_cast<std::uint32_t>(app_.settings().max_header_bytes));
    parser_->body_limit(app_.settings().max_body_bytes);
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    if (ec == http::error::body_limit || ec == http::error::header_limit) {
      auto api = error_response(make_error(ErrorKind::too_large, "too_large",
                                           ec == http::error::body_limit ? "request body over the limit"
                                                                         : "request header over the limit"));
      return send(to_http_response(std::move(api), 11, false, false));
    }
    if (ec) return fail(ec, "read");
    auto req = parser_->release();
    const bool head = req.method() == http::verb::head;
    auto api = router_.dispatch(to_api_request(req), app_);
    send(to_http_response(std::move(api), req.version(), req.keep_alive(), head));
  }

  void send(http::response<http::string_body>&& res) {
    auto sp = std::make_shared<http::response<http::string_body>>(std::move(res));
    response_ = sp;
    http::async_write(stream_, *sp,
                      beast::bind_front_handler(&Session::on_write, shared_from_this(), sp->need_eof()));
  }

  void on_write(bool close, beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "write");
    response_.reset();
    if (close) return do_close();
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<void> response_;
  AppContext& app_;
  const Router& router_;
};

}  // namespace

struct HttpServer::Impl {
  Impl(AppContext& a, const Router& r) : app(a), router(r), acceptor(ioc), signals(ioc, SIGINT, SIGTERM) {}

  void do_accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        fail(ec, "accept");
        if (ec == asio::error::operation_aborted) return;
      } else {
        std::make_shared<Session>(std::move(socket), app, router)->start();
      }
      do_accept();
    });
  }

  AppContext& app;
  const Router& router;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::signal_set signals;
};

HttpServer::HttpServer(AppContext& app, const Router& router) : impl_(std::make_unique<Impl>(app, router)) {}
HttpServer::~HttpServer() = default;

Result<unsigned short> HttpServer::listen(const std::string& host, unsigned short port) {
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return make_error(ErrorKind::invalid_input, "bad_listen", "cannot parse listen address '" + host + "'");
  const tcp::endpoint endpoint{address, port};
  auto& acc = impl_->acceptor;
  acc.open(endpoint.protocol(), ec);
  if (!ec) acc.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(endpoint, ec);
  if (!ec) acc.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return make_error(ErrorKind::internal, "listen_failed",
                      "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  }
  impl_->do_accept();
  return acc.local_endpoint().port();
}

void HttpServer::run(unsigned threads) {
  impl_->signals.async_wait([this](beast::error_code, int) { stop(); });
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < std::max(1u, threads); ++i) pool.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : pool) t.join();
}

void HttpServer::stop() {
  asio::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->signals.cancel(ec);
    impl_->ioc.stop();
  });
}

}  // namespace perftriage::server
