#include "server/http/session.hpp"

#include <malloc.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/strings.hpp"
#include "server/app/app_context.hpp"
#include "server/app/observability.hpp"
#include "server/http/admission.hpp"
#include "server/http/auth.hpp"
#include "server/http/framing.hpp"
#include "server/http/request_id.hpp"
#include "server/http/spool.hpp"

namespace perftriage::server::transport {
namespace {

// A request body at least this large leaves freed heap behind in glibc's arenas; it is handed back afterwards.
constexpr std::size_t kTrimAfterBytes = 8u << 20;
// Body bytes are read in steps of this size: into the request's string (small bodies) or a buffer written to the
// spool file (large ones). Memory per connection stays at most this much beyond the body itself.
constexpr std::size_t kBodyStep = 256u << 10;
// After an error answered before the body was read (401, 408, 413, ...), the connection is closed; reading and
// discarding what the client still sends, for a moment, lets it see the answer instead of a reset.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = 16u << 20;

}  // namespace

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, AppContext& app, const Router& router, Pools pools, std::shared_ptr<Hub> hub)
      : stream_(std::move(socket)),
        deadline_(stream_.get_executor()),
        app_(app),
        router_(router),
        pools_(pools),
        hub_(std::move(hub)) {
    beast::error_code ec;
    const auto peer = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = peer.address().to_string();
    ++hub_->open;
    app_.obs().connection_opened();
  }
  ~Session() {
    app_.obs().connection_closed();
    if (registered_) {
      std::lock_guard lock(hub_->mutex);
      hub_->sessions.erase(self_in_hub_);
    }
    if (--hub_->open == 0 && hub_->draining && hub_->on_drained) hub_->on_drained();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() {
    {
      std::lock_guard lock(hub_->mutex);
      self_in_hub_ = hub_->sessions.insert(hub_->sessions.end(), weak_from_this());
      registered_ = true;
    }
    asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::wait_for_request, shared_from_this()));
  }

  // The server is draining: a connection waiting for a request is closed now; one with a request in progress
  // finishes it and closes after the response (respond() sees `draining`).
  void drain() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->phase_ == Phase::waiting) self->stream_.cancel();
    });
  }

 private:
  enum class Phase { waiting, header, body, work, writing, closing };

  const LimitSettings& limits() const { return app_.settings().limits; }

  // Between requests: wait for the first byte of the next one. A new connection gets the header timeout for it,
  // a kept-alive one the idle timeout; either way it is closed silently when nothing comes.
  void wait_for_request() {
    phase_ = Phase::waiting;
    if (hub_->draining) return close_now();
    if (buffer_.size() > 0) return read_header();  // a pipelined request is already here
    stream_.expires_after(seconds(first_ ? limits().header_timeout_s : limits().idle_timeout_s));
    stream_.async_read_some(buffer_.prepare(4096),
                            beast::bind_front_handler(&Session::on_first_bytes, shared_from_this()));
  }

  void on_first_bytes(beast::error_code ec, std::size_t n) {
    if (ec) {
      if (ec == beast::error::timeout) app_.obs().connection_refused(first_ ? "header_timeout" : "idle_timeout");
      return close_now();  // timeout, peer closed, or the drain
    }
    buffer_.commit(n);
    read_header();
  }

  // From the first byte to the end of the headers: [limits] header_timeout_s.
  void read_header() {
    phase_ = Phase::header;
    first_ = false;
    started_ = std::chrono::steady_clock::now();
    body_complete_ = false;
    record_ = RequestRecord{};
    record_.route = "unmatched";
    record_.target = "";
    record_.remote = remote_;
    record_.request_id = request_id_for(ApiRequest{});
    slot_.reset();
    parser_.emplace();  // a fresh parser per request
    parser_->header_limit(static_cast<std::uint32_t>(app_.settings().max_header_bytes));
    // The largest body any route takes; narrowed to the route's own limit once the header names the route.
    parser_->body_limit(app_.settings().max_body_bytes);
    limit_ = app_.settings().max_body_bytes;
    limit_is_setting_ = true;
    stream_.expires_never();
    arm_deadline(limits().header_timeout_s);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::on_header, shared_from_this()));
  }

  // Our own deadline rather than the stream's: a stream timeout closes the socket, and a slow header or body is
  // answered 408 before the connection is closed.
  void arm_deadline(double s) {
    const auto gen = ++deadline_gen_;
    timed_out_ = false;
    deadline_.expires_after(seconds(s));
    deadline_.async_wait([self = shared_from_this(), gen](beast::error_code ec) {
      if (ec || gen != self->deadline_gen_) return;
      self->timed_out_ = true;
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);
    });
  }

  void disarm_deadline() {
    ++deadline_gen_;
    deadline_.cancel();
  }

  void on_header(beast::error_code ec, std::size_t) {
    disarm_deadline();
    if (ec && timed_out_) return refuse_timeout("header_timeout", limits().header_timeout_s);
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return close_now();
    if (ec == http::error::body_limit || ec == http::error::header_limit) return refuse_limit(ec);
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      // A head the parser refuses (a repeated or malformed Content-Length, a bad chunked coding, a bad field): an
      // answer the client can read, then the connection closes (RFC 9112 §6.3).
      return respond(error_response(make_error(ErrorKind::invalid_input, "bad_framing",
                                               "the request's head is malformed: " + ec.message())),
                     11, false, false);
    }
    if (ec) {
      fail(ec, "read");
      return close_now();
    }
    const auto& header = parser_->get().base();
    if (auto refused = framing_error(header.version(), header_fields(header))) {
      return respond(error_response(*refused), header.version(), false, false);
    }
    head_ = request_head(header);
    head_.request_id = request_id_for(head_);
    const RouteOptions& route = router_.options_for(head_.method, head_.path);
    record_.request_id = head_.request_id;
    record_.method = head_.method;
    record_.route = route.pattern.empty() ? "unmatched" : route.pattern;
    record_.target = head_.path;
    cors_ = cors_headers(head_, app_);
    auto admission = admit(head_, route, app_, pools_.per_client, remote_);
    record_.token_name = head_.token_name;  // set by authorize for a valid token, refused (403) or not
    if (admission.refusal) return respond(std::move(*admission.refusal), header.version(), false, false);
    limit_ = admission.body_limit;
    limit_is_setting_ = admission.limit_is_setting;
    slot_ = std::move(admission.slot);
    lane_ = route.lane;
    cacheable_ = route.cacheable;
    if (const auto length = parser_->content_length(); length && *length > limit_) {
      return refuse_limit(http::error::body_limit);
    }
    start_body();
  }

  // The body: in memory up to [limits] spool_threshold_mb, else streamed to an unlinked temporary file; the route's
  // limit is enforced as it arrives (chunked bodies included); the whole body within [limits] body_timeout_s.
  void start_body() {
    phase_ = Phase::body;
    parser_->body_limit(limit_);
    received_ = 0;
    spool_.reset();
    mem_ = std::string();
    if (parser_->is_done()) return finish_body();
    if (const auto length = parser_->content_length()) {
      if (*length > limits().spool_threshold_bytes) {
        if (!open_spool()) return;
      } else {
        mem_.reserve(static_cast<std::size_t>(*length));  // reserved, not touched: pages come as bytes do
      }
    }
    arm_deadline(limits().body_timeout_s);
    const auto expect = parser_->get()[http::field::expect];
    if (parser_->get().version() >= 11 && iequals(std::string_view(expect.data(), expect.size()), "100-continue")) {
      // The client waits for this before it sends the body (curl does, for bodies over 1 MB).
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      return asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                               [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                 if (ec) return self->on_body(ec, 0);
                                 self->read_body_step();
                               });
    }
    read_body_step();
  }

  bool open_spool() {
    auto file = SpoolFile::create(spool_directory(limits().spool_dir));
    if (!file) {
      disarm_deadline();
      auto api = error_response(file.error());
      api.headers.emplace_back("Retry-After", "30");
      respond(std::move(api), parser_->get().version(), false, false);
      return false;
    }
    spool_ = std::move(*file);
    return true;
  }

  void read_body_step() {
    auto& body = parser_->get().body();
    if (!spool_ && received_ >= limits().spool_threshold_bytes) {
      // A body without Content-Length (chunked) outgrew memory: what came so far goes to the file first.
      if (!open_spool()) return;
      if (auto err = spool_->write(mem_.data(), received_)) return spool_failed(*err);
      mem_ = std::string();
    }
    if (spool_) {
      if (step_.size() != kBodyStep) step_.resize(kBodyStep);
      body.data = step_.data();
      offered_ = step_.size();
    } else {
      std::size_t room = std::min(kBodyStep, limits().spool_threshold_bytes - received_);
      if (const auto length = parser_->content_length()) room = std::min<std::size_t>(room, *length - received_);
      room = std::max<std::size_t>(room, 1);
      mem_.resize(received_ + room);
      body.data = mem_.data() + received_;
      offered_ = room;
    }
    body.size = offered_;
    body.more = true;
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_body, shared_from_this()));
  }

  void on_body(beast::error_code ec, std::size_t) {
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = offered_ - parser_->get().body().size;
    offered_ = parser_->get().body().size = 0;
    if (spool_ && got > 0) {
      if (auto err = spool_->write(step_.data(), got)) return spool_failed(*err);
    }
    received_ += got;
    if (ec) {
      disarm_deadline();
      if (timed_out_) return refuse_timeout("body_timeout", limits().body_timeout_s);
      if (ec == http::error::body_limit) return refuse_limit(ec);
      fail(ec, "read");
      return close_now();
    }
    if (!parser_->is_done()) return read_body_step();
    disarm_deadline();
    finish_body();
  }

  void spool_failed(const Error& error) {
    disarm_deadline();
    spool_.reset();
    auto api = error_response(error);
    api.headers.emplace_back("Retry-After", "30");
    respond(std::move(api), parser_->get().version(), false, false);
  }

  void finish_body() {
    body_complete_ = true;
    const auto& msg = parser_->get();
    const unsigned version = msg.version();
    const bool keep_alive = msg.keep_alive();
    const bool head = msg.method() == http::verb::head;
    if (spool_) {
      auto mapped = spool_->map();
      spool_.reset();
      if (!mapped) return spool_failed(mapped.error());
      head_.mapped = std::move(*mapped);
    } else {
      mem_.resize(received_);
      head_.body = std::move(mem_);  // moved, never copied: the request owns the bytes read
      mem_ = std::string();
    }
    std::vector<char>().swap(step_);
    parser_.reset();
    record_.bytes_in = received_;
    dispatch(version, keep_alive, head);
  }

  // A read route's GET is looked up in the response cache first: a hit is answered here, on the I/O thread; a miss
  // runs in the pool and fills the cache (server/http/response_cache.hpp).
  void dispatch(unsigned version, bool keep_alive, bool head) {
    phase_ = Phase::work;
    const auto negotiation = Negotiation::of(head_);
    if (lane_ == Lane::io) {
      return respond(finish(router_.dispatch(std::move(head_), app_), negotiation), version, keep_alive, head);
    }
    ResponseCache::Ticket ticket;
    if (lane_ == Lane::read && cacheable_) ticket = pools_.cache.lookup(head_, app_, negotiation);
    if (ticket.hit) return respond(std::move(*ticket.hit), version, keep_alive, head);
    WorkPool& pool = pool_for(lane_);
    auto self = shared_from_this();
    const bool queued = pool.try_submit([self, api = std::move(head_), ticket = std::move(ticket),
                                         slot = std::move(slot_), negotiation, version, keep_alive, head]() mutable {
      const bool large = api.bytes().size() >= kTrimAfterBytes;
      auto res = self->pools_.cache.run(ticket, negotiation, self->app_, [&] {
        return self->router_.dispatch(std::move(api), self->app_);  // the body (and its mapping) ends here
      });
      if (large) malloc_trim(0);
      slot.reset();  // before the answer leaves: the client's next request must find its share free
      asio::post(self->stream_.get_executor(), [self, res = std::move(res), version, keep_alive, head]() mutable {
        self->respond(std::move(res), version, keep_alive, head);
      });
    });
    if (!queued) respond(queue_full(pool.name(), pool.queue_limit()), version, keep_alive, head);
  }

  WorkPool& pool_for(Lane lane) {
    if (lane == Lane::heavy) return pools_.heavy;
    if (lane == Lane::compute) return pools_.compute;
    return pools_.read;
  }

  void refuse_limit(beast::error_code ec) {
    const bool body = ec == http::error::body_limit;
    std::string message = body ? "request body over the limit of " + mib(limit_) + " for this endpoint" +
                                     (limit_is_setting_ ? " ([limits] max_body_mb, serve --max-body-mb)"
                                                        : " (fixed for this endpoint, at most [limits] max_body_mb)")
                               : "request header over the limit of " + mib(app_.settings().max_header_bytes) +
                                     " ([limits] max_header_kb)";
    // The route never sees this request: the transport counts the refused upload for it.
    if (body && record_.route == "/api/v1/uploads") app_.obs().upload_refused("body_too_large");
    auto api = error_response(make_error(ErrorKind::too_large, body ? "body_too_large" : "header_too_large", message));
    respond(std::move(api), 11, false, false);
  }

  void refuse_timeout(const char* code, double limit_s) {
    app_.obs().connection_refused(code);
    const bool header = std::string_view(code) == "header_timeout";
    std::string message = std::string(header ? "request header" : "request body") + " not received within " +
                          seconds_text(limit_s) + " ([limits] " + code + "_s)";
    auto api = error_response(make_error(ErrorKind::invalid_input, code, message));
    api.status = 408;
    respond(std::move(api), 11, false, false);
  }

  // Every response leaves through here: request id, CORS headers; counted and logged, then the bytes. Logged
  // before they are written, so that no answer a client saw is missing from the log when the process dies.
  void respond(ApiResponse api, unsigned version, bool keep_alive, bool head) {
    if (hub_->draining) keep_alive = false;  // the last response of a draining connection says so
    stamp_response(api, record_.request_id);
    for (const auto& h : cors_) api.headers.push_back(h);
    record_.status = api.status;
    record_.bytes_out = api.bytes().size();
    record_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    app_.obs().request_done(record_);
    if (api.shared_body) {
      auto shared = to_shared_response(std::move(api), version, keep_alive, head);
      return send(shared, shared->res);
    }
    auto owned = std::make_shared<http::response<http::string_body>>(
        to_http_response(std::move(api), version, keep_alive, head));
    send(owned, *owned);
  }

  // `owner` keeps the message (and whatever its body points into) alive until the write ends.
  template <class Message>
  void send(std::shared_ptr<void> owner, Message& res) {
    phase_ = Phase::writing;
    response_ = std::move(owner);
    stream_.expires_after(seconds(limits().write_timeout_s));
    http::async_write(stream_, res, beast::bind_front_handler(&Session::on_write, shared_from_this(), res.need_eof()));
  }

  void on_write(bool close, beast::error_code ec, std::size_t) {
    response_.reset();
    if (ec) {
      if (ec == beast::error::timeout) app_.obs().connection_refused("write_timeout");
      fail(ec, "write");
      return close_now();
    }
    if (!close) return wait_for_request();
    if (!body_complete_) return linger_close();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);  // closed when the session ends, now
  }

  // The answer went out before the request's body was read: stop sending, then read and discard what the client is
  // still sending (bounded in time and bytes) so that closing does not reset the connection under its answer.
  void linger_close() {
    phase_ = Phase::closing;
    parser_.reset();
    spool_.reset();
    mem_ = std::string();
    std::vector<char>().swap(step_);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    lingered_ = 0;
    linger_step();
  }

  void linger_step() {
    stream_.async_read_some(buffer_.prepare(64u << 10),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->buffer_.commit(n);
                              self->buffer_.consume(self->buffer_.size());
                              self->lingered_ += n;
                              if (ec || self->lingered_ >= kLingerBytes) return self->close_now();
                              self->linger_step();
                            });
  }

  void close_now() {
    phase_ = Phase::closing;
    disarm_deadline();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  asio::steady_timer deadline_;
  std::uint64_t deadline_gen_ = 0;
  bool timed_out_ = false;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::buffer_body>> parser_;
  ApiRequest head_;
  std::string mem_;                   // a body below the spool threshold, read in place
  std::unique_ptr<SpoolFile> spool_;  // a body above it
  std::vector<char> step_;            // the spool's write buffer
  std::size_t offered_ = 0;           // bytes of room given to the parser for this step
  std::size_t received_ = 0;
  std::size_t lingered_ = 0;
  bool body_complete_ = false;
  bool first_ = true;
  Phase phase_ = Phase::waiting;
  std::shared_ptr<void> response_;
  std::size_t limit_ = 0;
  bool limit_is_setting_ = true;
  Lane lane_ = Lane::read;
  bool cacheable_ = true;
  std::shared_ptr<ClientLimiter::Slot> slot_;  // this request's share of the compute pool, until handed to the job
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  RequestRecord record_;
  std::string remote_;
  std::vector<std::pair<std::string, std::string>> cors_;
  AppContext& app_;
  const Router& router_;
  Pools pools_;
  std::shared_ptr<Hub> hub_;
  std::list<std::weak_ptr<Session>>::iterator self_in_hub_;
  bool registered_ = false;
};

void start_session(tcp::socket&& socket, AppContext& app, const Router& router, Pools pools, std::shared_ptr<Hub> hub) {
  std::make_shared<Session>(std::move(socket), app, router, pools, std::move(hub))->start();
}

void drain_sessions(Hub& hub) {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(hub.mutex);
    for (auto& w : hub.sessions) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->drain();
  live.clear();  // outside the lock: the last reference may end a session, which takes the lock
}

}  // namespace perftriage::server::transport
