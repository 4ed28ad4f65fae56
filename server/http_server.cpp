#include "server/http_server.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include "server/auth.hpp"
#include "server/observability.hpp"
#include "server/work_pool.hpp"

namespace perftriage::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// A request body at least this large leaves freed heap behind in glibc's arenas; it is handed back afterwards.
constexpr std::size_t kTrimAfterBytes = 8u << 20;
// Heavy jobs (a minute of ingest, a classification) yield the CPU to the I/O threads and the read pool.
constexpr int kHeavyNiceness = 10;
// Every response: no MIME sniffing, never framed. JSON and text get a policy that allows nothing at all; the
// dashboard's HTML gets the one its <meta> tag states, plus frame-ancestors (which a <meta> tag cannot set).
constexpr const char* kCspNone = "default-src 'none'; frame-ancestors 'none'";
constexpr const char* kCspHtml =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

void fail(beast::error_code ec, const char* what) {
  // Peers closing or timing out are routine; anything else is worth a line.
  if (ec == asio::error::operation_aborted || ec == beast::error::timeout || ec == asio::error::eof ||
      ec == http::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    return;
  }
  std::cerr << "perftriage: " << what << ": " << ec.message() << "\n";
}

// Method, path, query and headers; the body is moved in separately (it may be hundreds of MB).
ApiRequest request_head(const http::request_header<>& req) {
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
  return out;
}

http::response<http::string_body> to_http_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  http::response<http::string_body> res{static_cast<http::status>(api.status), version};
  res.set(http::field::server, "perftriage");
  res.set(http::field::content_type, api.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy", api.content_type.rfind("text/html", 0) == 0 ? kCspHtml : kCspNone);
  for (auto& [name, value] : api.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  const auto size = api.body.size();
  if (!head) res.body() = std::move(api.body);
  res.content_length(size);
  return res;
}

std::string mib(std::uint64_t bytes) {
  return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

struct Pools {
  WorkPool& read;
  WorkPool& heavy;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, AppContext& app, const Router& router, Pools pools)
      : stream_(std::move(socket)), app_(app), router_(router), pools_(pools) {
    beast::error_code ec;
    const auto peer = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = peer.address().to_string();
    app_.obs().connection_opened();
  }
  ~Session() { app_.obs().connection_closed(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() {
    asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();  // a fresh parser per request
    parser_->header_limit(static_cast<std::uint32_t>(app_.settings().max_header_bytes));
    // The largest body any route takes; narrowed to the route's own limit once the header names the route.
    parser_->body_limit(app_.settings().max_body_bytes);
    limit_ = app_.settings().max_body_bytes;
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    if (ec == http::error::body_limit || ec == http::error::header_limit) return refuse_limit(ec);
    if (ec) return fail(ec, "read");
    const auto& header = parser_->get().base();
    ApiRequest head = request_head(header);
    started_ = std::chrono::steady_clock::now();
    head.request_id = request_id_for(head);
    const RouteOptions& route = router_.options_for(head.method, head.path);
    record_ = RequestRecord{};
    record_.request_id = head.request_id;
    record_.method = head.method;
    record_.route = route.pattern.empty() ? "unmatched" : route.pattern;
    record_.target = head.path;
    record_.remote = remote_;
    cors_ = cors_headers(head, app_);
    if (auto refused = authorize(head, route, app_)) {
      // Decided from the head alone: the body is never read, so the connection cannot be reused.
      return respond(error_response(*refused), header.version(), false, false);
    }
    record_.token_name = head.token_name;
    const std::size_t server_limit = app_.settings().max_body_bytes;
    limit_ = route.max_body_bytes == 0 ? server_limit : std::min(route.max_body_bytes, server_limit);
    lane_ = route.lane;
    if (route.header_check) {
      if (auto refused = route.header_check(head, app_)) {
        // The body is never read, so the connection cannot be reused.
        return respond(error_response(*refused), header.version(), false, false);
      }
    }
    if (const auto length = parser_->content_length(); length && *length > limit_) {
      return refuse_limit(http::error::body_limit);
    }
    parser_->body_limit(limit_);
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void refuse_limit(beast::error_code ec) {
    const bool body = ec == http::error::body_limit;
    std::string message =
        body ? "request body over the limit of " + mib(limit_) + " for this endpoint (serve --max-body-mb raises "
                                                                  "the upload limit)"
             : "request header over the limit of " + mib(app_.settings().max_header_bytes);
    auto api = error_response(make_error(ErrorKind::too_large, body ? "body_too_large" : "header_too_large", message));
    respond(std::move(api), 11, false, false);
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::body_limit || ec == http::error::header_limit) return refuse_limit(ec);
    if (ec) return fail(ec, "read");
    auto req = parser_->release();
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive();
    const bool head = req.method() == http::verb::head;
    ApiRequest api = request_head(req.base());
    api.body = std::move(req.body());
    api.request_id = record_.request_id;
    api.token_name = record_.token_name;
    record_.bytes_in = api.body.size();
    if (lane_ == Lane::io) {
      return respond(router_.dispatch(std::move(api), app_), version, keep_alive, head);
    }
    WorkPool& pool = lane_ == Lane::heavy ? pools_.heavy : pools_.read;
    auto self = shared_from_this();
    const bool queued = pool.try_submit([self, api = std::move(api), version, keep_alive, head]() mutable {
      const bool large = api.body.size() >= kTrimAfterBytes;
      auto res = self->router_.dispatch(std::move(api), self->app_);
      if (large) malloc_trim(0);
      asio::post(self->stream_.get_executor(), [self, res = std::move(res), version, keep_alive, head]() mutable {
        self->respond(std::move(res), version, keep_alive, head);
      });
    });
    if (!queued) {
      auto busy = error_response(make_error(
          ErrorKind::unavailable, "queue_full",
          "the " + pool.name() + " queue is full (" + std::to_string(pool.queue_limit()) +
              " requests waiting); retry after 1 s"));
      busy.headers.emplace_back("Retry-After", "1");
      respond(std::move(busy), version, keep_alive, head);
    }
  }

  // Every response leaves through here: request id, CORS headers, then the bytes; counted and logged once written.
  void respond(ApiResponse api, unsigned version, bool keep_alive, bool head) {
    stamp_response(api, record_.request_id);
    for (const auto& h : cors_) api.headers.push_back(h);
    record_.status = api.status;
    record_.bytes_out = api.body.size();
    send(to_http_response(std::move(api), version, keep_alive, head));
  }

  void send(http::response<http::string_body>&& res) {
    auto sp = std::make_shared<http::response<http::string_body>>(std::move(res));
    response_ = sp;
    stream_.expires_after(std::chrono::seconds(60));
    http::async_write(stream_, *sp,
                      beast::bind_front_handler(&Session::on_write, shared_from_this(), sp->need_eof()));
  }

  void on_write(bool close, beast::error_code ec, std::size_t) {
    if (record_.status != 0) {
      record_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      if (ec) record_.bytes_out = 0;
      app_.obs().request_done(record_);
      record_.status = 0;
    }
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
  std::size_t limit_ = 0;
  Lane lane_ = Lane::read;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  RequestRecord record_;
  std::string remote_;
  std::vector<std::pair<std::string, std::string>> cors_;
  AppContext& app_;
  const Router& router_;
  Pools pools_;
};

// The soft limit on open files is often 1024 while the hard limit is far higher; every connection is one file.
void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  const auto before = lim.rlim_cur;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &lim) == 0) {
    std::cerr << "perftriage: open file limit raised from " << before << " to " << lim.rlim_cur << "\n";
  }
}

}  // namespace

struct HttpServer::Impl {
  Impl(AppContext& a, const Router& r)
      : app(a),
        router(r),
        acceptor(ioc),
        signals(ioc, SIGINT, SIGTERM),
        accept_timer(ioc),
        read_pool("read", a.settings().read_workers, a.settings().read_queue),
        heavy_pool("heavy", a.settings().heavy_workers, a.settings().heavy_queue, kHeavyNiceness) {}

  void do_accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) return on_accept_error(ec);
      accept_pause = std::chrono::milliseconds(0);
      std::make_shared<Session>(std::move(socket), app, router, Pools{read_pool, heavy_pool})->start();
      do_accept();
    });
  }

  // Out of file descriptors (or kernel memory), accept fails at once for as long as the condition lasts: retrying
  // immediately pegs a core and logs without end. Pause accepting, doubling the pause up to 1 s, and log once per
  // 10 s with the count of failures; connections already open keep being served and free descriptors as they close.
  void on_accept_error(beast::error_code ec) {
    const int e = ec.value();
    const bool exhausted = e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
    accept_pause = exhausted ? std::clamp(accept_pause * 2, std::chrono::milliseconds(10), std::chrono::milliseconds(1000))
                             : std::chrono::milliseconds(1);
    ++accept_failures;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_accept_log >= std::chrono::seconds(10)) {
      std::cerr << "perftriage: accept: " << ec.message() << " (" << accept_failures
                << " failures since the last report); pausing accepts for " << accept_pause.count() << " ms"
                << (e == EMFILE ? "; raise LimitNOFILE / ulimit -n" : "") << "\n";
      last_accept_log = now;
      accept_failures = 0;
    }
    accept_timer.expires_after(accept_pause);
    accept_timer.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec) do_accept();
    });
  }

  AppContext& app;
  const Router& router;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer accept_timer;
  std::chrono::milliseconds accept_pause{0};
  std::uint64_t accept_failures = 0;
  std::chrono::steady_clock::time_point last_accept_log{};
  // Declared after the io_context: destroyed (drained and joined) before it.
  WorkPool read_pool;
  WorkPool heavy_pool;
};

HttpServer::HttpServer(AppContext& app, const Router& router) : impl_(std::make_unique<Impl>(app, router)) {}
HttpServer::~HttpServer() = default;

Result<unsigned short> HttpServer::listen(const std::string& host, unsigned short port) {
  raise_open_file_limit();
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
  impl_->heavy_pool.stop();
  impl_->read_pool.stop();
}

void HttpServer::stop() {
  asio::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->accept_timer.cancel();
    impl_->signals.cancel(ec);
    impl_->ioc.stop();
  });
}

}  // namespace perftriage::server
