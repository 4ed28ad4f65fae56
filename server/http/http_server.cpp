#include "server/http/http_server.hpp"

#include <sys/resource.h>

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "server/app/observability.hpp"
#include "server/http/client_limiter.hpp"
#include "server/http/response_cache.hpp"
#include "server/http/session.hpp"
#include "server/http/wire.hpp"
#include "server/http/work_pool.hpp"

namespace perftriage::server {

using namespace transport;  // NOLINT(google-build-using-namespace): the listener is one of the transport's pieces

namespace {

// Heavy jobs (a minute of ingest, a webhook) yield the CPU to the I/O threads and the read pool; compute anyone may
// ask for (classify, label) yields it to them too, so a CI upload never waits on a stranger's classification.
constexpr int kHeavyNiceness = 10;
constexpr int kComputeNiceness = 19;
// A connection over the cap gets its 503 and is closed after at most this long.
constexpr auto kRefusalLinger = std::chrono::seconds(1);
constexpr const char* kRetryAfterConnections = "5";
// The drain gets [limits] drain_timeout_s; a request still running this long after it is abandoned (exit 1).
constexpr auto kDrainGrace = std::chrono::seconds(10);

// A connection over [limits] max_connections: a fixed 503, written without reading the request, then closed.
class Refusal : public std::enable_shared_from_this<Refusal> {
 public:
  Refusal(tcp::socket&& socket, std::shared_ptr<const std::string> answer)
      : stream_(std::move(socket)), answer_(std::move(answer)) {}

  void start() {
    stream_.expires_after(kRefusalLinger);  // bounds the write and the discard below together
    asio::async_write(stream_, asio::buffer(*answer_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      self->discard();
    });
  }

 private:
  void discard() {
    stream_.async_read_some(asio::buffer(sink_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (!ec) self->discard();
    });
  }

  beast::tcp_stream stream_;
  std::shared_ptr<const std::string> answer_;
  std::array<char, 4096> sink_{};
};

// The soft limit on open files is often 1024 while the hard limit is far higher; every connection is one file.
void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  const auto before = lim.rlim_cur;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &lim) == 0) {
    log().info("open file limit raised from {} to {}", before, lim.rlim_cur);
  }
}

std::shared_ptr<const std::string> too_many_connections_answer(std::size_t cap) {
  auto api = error_response(make_error(ErrorKind::unavailable, "too_many_connections",
                                       "the server has " + std::to_string(cap) +
                                           " connections open, its limit ([limits] max_connections); " +
                                           "retry after " + kRetryAfterConnections + " s"));
  api.headers.emplace_back("Retry-After", kRetryAfterConnections);
  auto res = to_http_response(std::move(api), 11, false, false);
  std::ostringstream out;
  out << res;
  return std::make_shared<const std::string>(out.str());
}

}  // namespace

// One io_context per I/O thread, each run by its thread alone (concurrency hint 1): a connection lives on one of them
// from accept to close, so its handlers need no strand and the threads share no scheduler lock, as nginx's workers
// share nothing. The first one also runs the acceptor, the signals and the drain; it hands each new connection to
// the next context in turn. Work for the pools is posted back to the connection's own context.
struct HttpServer::Impl {
  Impl(AppContext& a, const Router& r)
      : app(a),
        router(r),
        contexts(make_first_context()),
        ioc(*contexts.front()),
        acceptor(ioc),
        signals(ioc, SIGINT, SIGTERM),
        accept_timer(ioc),
        drain_timer(ioc),
        hub(std::make_shared<Hub>()),
        refusal_answer(too_many_connections_answer(a.settings().limits.max_connections)),
        cache(a.settings().cache.max_bytes),
        per_client(std::make_shared<ClientLimiter>(a.settings().compute_per_client)),
        read_pool("read", a.settings().read_workers, a.settings().read_queue),
        heavy_pool("heavy", a.settings().heavy_workers, a.settings().heavy_queue, kHeavyNiceness),
        compute_pool("compute", a.settings().compute_workers, a.settings().compute_queue, kComputeNiceness) {
    hub->on_drained = [this] { stop_all(); };
  }

  static std::vector<std::unique_ptr<asio::io_context>> make_first_context() {
    std::vector<std::unique_ptr<asio::io_context>> v;
    v.push_back(std::make_unique<asio::io_context>(1));
    return v;
  }

  // Before the threads start (HttpServer::run): the other contexts, each kept running while idle.
  void add_contexts(unsigned threads) {
    while (contexts.size() < std::max(1u, threads)) {
      contexts.push_back(std::make_unique<asio::io_context>(1));
      guards.push_back(asio::make_work_guard(*contexts.back()));
    }
  }

  asio::io_context& next_context() {
    auto& c = *contexts[next_session % contexts.size()];
    ++next_session;
    return c;
  }

  // From any thread (the last connection of a drain closes on its own one).
  void stop_all() {
    std::lock_guard lock(stop_mutex);
    for (auto& g : guards) g.reset();
    for (auto& c : contexts) c->stop();
  }

  ~Impl() {
    hub->on_drained = nullptr;  // sessions destroyed with the io_context must not stop it
    cancel_watchdog();
  }

  void cancel_watchdog() {
    {
      std::lock_guard lock(watchdog_mutex);
      watchdog_cancelled = true;
    }
    watchdog_wake.notify_all();
    if (watchdog.joinable()) watchdog.join();
  }

  void do_accept() {
    acceptor.async_accept(next_context(), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) return on_accept_error(ec);
      accept_pause = std::chrono::milliseconds(0);
      if (hub->draining) return;  // the acceptor is closing
      const std::size_t cap = app.settings().limits.max_connections;
      if (cap != 0 && hub->open.load() >= cap) {
        app.obs().connection_refused("connection_cap");
        std::make_shared<Refusal>(std::move(socket), refusal_answer)->start();
      } else {
        start_session(std::move(socket), app, router, Pools{read_pool, heavy_pool, compute_pool, *per_client, cache},
                      hub);
      }
      do_accept();
    });
  }

  // Out of file descriptors (or kernel memory), accept fails at once for as long as the condition lasts: retrying
  // immediately pegs a core and logs without end. Pause accepting, doubling the pause up to 1 s, and log once per
  // 10 s with the count of failures; connections already open keep being served and free descriptors as they close.
  void on_accept_error(beast::error_code ec) {
    const int e = ec.value();
    const bool exhausted = e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
    accept_pause = exhausted
                       ? std::clamp(accept_pause * 2, std::chrono::milliseconds(10), std::chrono::milliseconds(1000))
                       : std::chrono::milliseconds(1);
    ++accept_failures;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_accept_log >= std::chrono::seconds(10)) {
      log().error("accept: {} ({} failures since the last report); pausing accepts for {} ms{}", ec.message(),
                  accept_failures, accept_pause.count(), e == EMFILE ? "; raise LimitNOFILE / ulimit -n" : "");
      last_accept_log = now;
      accept_failures = 0;
    }
    accept_timer.expires_after(accept_pause);
    accept_timer.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec) do_accept();
    });
  }

  void wait_for_signal() {
    signals.async_wait([this](beast::error_code ec, int signo) {
      if (ec) return;
      if (!hub->draining) {
        begin_drain(signo);
        wait_for_signal();
      } else {
        log().warn("second signal: stopping without waiting for the drain");
        forced = true;
        stop_all();
      }
    });
  }

  // SIGTERM / SIGINT: stop accepting, close connections waiting for a request, let the requests in progress finish
  // for up to [limits] drain_timeout_s, then stop. A second signal stops at once.
  void begin_drain(int signo) {
    hub->draining = true;
    beast::error_code ignored;
    acceptor.close(ignored);
    accept_timer.cancel();
    const double timeout_s = app.settings().limits.drain_timeout_s;
    log().info("{}: draining {} connection(s) for up to {} ([limits] drain_timeout_s)",
               signo == SIGINT ? "SIGINT" : "SIGTERM", hub->open.load(), seconds_text(timeout_s));
    drain_sessions(*hub);
    if (hub->open.load() == 0) return stop_all();
    drain_timer.expires_after(seconds(timeout_s));
    drain_timer.async_wait([this, timeout_s](beast::error_code ec) {
      if (ec) return;
      log().warn("drain: {} connection(s) still open after {}; stopping", hub->open.load(), seconds_text(timeout_s));
      forced = true;
      stop_all();
    });
    // A handler that never returns cannot hold the process forever.
    const auto bound = seconds(timeout_s) + kDrainGrace;
    watchdog = std::thread([this, bound] {
      std::unique_lock lock(watchdog_mutex);
      if (watchdog_wake.wait_for(lock, bound, [this] { return watchdog_cancelled; })) return;
      log().error("drain: requests still running {} s after the drain timeout; exiting",
                  std::chrono::duration_cast<std::chrono::seconds>(kDrainGrace).count());
      std::_Exit(1);
    });
  }

  AppContext& app;
  const Router& router;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  asio::io_context& ioc;  // contexts[0]: the acceptor, signals, timers
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;  // of contexts[1..]
  std::size_t next_session = 0;
  std::mutex stop_mutex;
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer accept_timer;
  asio::steady_timer drain_timer;
  std::chrono::milliseconds accept_pause{0};
  std::uint64_t accept_failures = 0;
  std::chrono::steady_clock::time_point last_accept_log{};
  std::shared_ptr<Hub> hub;
  std::shared_ptr<const std::string> refusal_answer;
  ResponseCache cache;
  std::atomic<bool> forced{false};
  std::thread watchdog;
  std::mutex watchdog_mutex;
  std::condition_variable watchdog_wake;
  bool watchdog_cancelled = false;
  std::shared_ptr<ClientLimiter> per_client;  // shared with every slot it hands out
  // Declared after the io_context: destroyed (drained and joined) before it.
  WorkPool read_pool;
  WorkPool heavy_pool;
  WorkPool compute_pool;
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
  // A first line through the logger now, while descriptors are surely free: the UBSan build checks the dynamic types
  // of the logger's sink, formatter and buffer at their first use, and that check opens a pipe, which would fail at
  // the first accept error of a server out of descriptors.
  log().info("listening on {}:{}", host, acc.local_endpoint().port());
  return acc.local_endpoint().port();
}

void HttpServer::run(unsigned threads) {
  impl_->wait_for_signal();
  impl_->add_contexts(threads);
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < impl_->contexts.size(); ++i) {
    pool.emplace_back([this, i] { impl_->contexts[i]->run(); });
  }
  impl_->ioc.run();
  impl_->stop_all();  // the first context ended (a stop, the drain): so do the others
  for (auto& t : pool) t.join();
  if (impl_->forced) {
    // Requests still queued have stored nothing: they are dropped; the ones running finish (bounded by the watchdog).
    const auto dropped =
        impl_->heavy_pool.discard_queued() + impl_->compute_pool.discard_queued() + impl_->read_pool.discard_queued();
    if (dropped > 0) log().warn("drain: {} queued request(s) dropped", dropped);
  }
  impl_->heavy_pool.stop();
  impl_->compute_pool.stop();
  impl_->read_pool.stop();
  impl_->cancel_watchdog();
}

void HttpServer::stop() {
  asio::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->accept_timer.cancel();
    impl_->drain_timer.cancel();
    impl_->signals.cancel(ec);
    impl_->stop_all();
  });
}

}  // namespace perftriage::server
