#include "server/http/http_server.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

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
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "common/strings.hpp"
#include "server/app/observability.hpp"
#include "server/http/auth.hpp"
#include "server/http/client_limiter.hpp"
#include "server/http/framing.hpp"
#include "server/http/request_id.hpp"
#include "server/http/response_cache.hpp"
#include "server/http/work_pool.hpp"

namespace perftriage::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// A request body at least this large leaves freed heap behind in glibc's arenas; it is handed back afterwards.
constexpr std::size_t kTrimAfterBytes = 8u << 20;
// Heavy jobs (a minute of ingest, a webhook) yield the CPU to the I/O threads and the read pool; compute anyone may
// ask for (classify, label) yields it to them too, so a CI upload never waits on a stranger's classification.
constexpr int kHeavyNiceness = 10;
constexpr int kComputeNiceness = 19;
// A client over its share of the compute pool: how long it is asked to wait.
constexpr const char* kRetryAfterClient = "1";
// Every response: no MIME sniffing, never framed. JSON and text get a policy that allows nothing at all; the
// dashboard's HTML gets the one its <meta> tag states, plus frame-ancestors (which a <meta> tag cannot set).
constexpr const char* kCspNone = "default-src 'none'; frame-ancestors 'none'";
constexpr const char* kCspHtml =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
// Body bytes are read in steps of this size: into the request's string (small bodies) or a buffer written to the
// spool file (large ones). Memory per connection stays at most this much beyond the body itself.
constexpr std::size_t kBodyStep = 256u << 10;
// After an error answered before the body was read (401, 408, 413, ...), the connection is closed; reading and
// discarding what the client still sends, for a moment, lets it see the answer instead of a reset.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = 16u << 20;
// A connection over the cap gets its 503 and is closed after at most this long.
constexpr auto kRefusalLinger = std::chrono::seconds(1);
constexpr const char* kRetryAfterConnections = "5";
// The drain gets [limits] drain_timeout_s; a request still running this long after it is abandoned (exit 1).
constexpr auto kDrainGrace = std::chrono::seconds(10);

void fail(beast::error_code ec, const char* what) {
  // Peers closing or timing out are routine; anything else is worth a line.
  if (ec == asio::error::operation_aborted || ec == beast::error::timeout || ec == asio::error::eof ||
      ec == http::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
      ec == http::error::partial_message) {
    return;
  }
  log().warn("{}: {}", what, ec.message());
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.001, s)));
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// The head's fields as sent, repeated ones kept (request_head keeps the last of each): what framing_error reads.
HeaderFields header_fields(const http::request_header<>& req) {
  HeaderFields out;
  for (const auto& field : req) {
    out.emplace_back(std::string_view(field.name_string().data(), field.name_string().size()),
                     std::string_view(field.value().data(), field.value().size()));
  }
  return out;
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
    const auto name = field.name_string();
    out.headers[lower({name.data(), name.size()})] = std::string(field.value());
  }
  return out;
}

// The head of every response: security headers, the handler's own, keep-alive and the length.
template <class Body>
void set_head(http::response<Body>& res, const ApiResponse& api, bool keep_alive, std::size_t size) {
  res.set(http::field::server, "perftriage");
  if (!api.content_type.empty()) res.set(http::field::content_type, api.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy", api.content_type.rfind("text/html", 0) == 0 ? kCspHtml : kCspNone);
  for (const auto& [name, value] : api.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  if (api.status != 304) res.content_length(size);  // a 304 has no body, and no length of one
}

http::response<http::string_body> to_http_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  http::response<http::string_body> res{static_cast<http::status>(api.status), version};
  set_head(res, api, keep_alive, api.body.size());
  if (!head) res.body() = std::move(api.body);
  return res;
}

// An answer whose bytes belong to a response cache entry: written from the entry, which this keeps alive.
struct SharedResponse {
  std::shared_ptr<const std::string> bytes;
  http::response<http::buffer_body> res;
};

std::shared_ptr<SharedResponse> to_shared_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  auto out = std::make_shared<SharedResponse>();
  out->bytes = std::move(api.shared_body);
  out->res = http::response<http::buffer_body>{static_cast<http::status>(api.status), version};
  set_head(out->res, api, keep_alive, out->bytes->size());
  auto& body = out->res.body();
  body.data = head || out->bytes->empty() ? nullptr : const_cast<char*>(out->bytes->data());  // only ever read
  body.size = head ? 0 : out->bytes->size();
  body.more = false;
  return out;
}

std::string mib(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// ---- spooling -------------------------------------------------------------------------------------------------

// A spooled body, mapped read-only. The file was unlinked when it was made: closing the mapping frees the disk.
class SpooledBody final : public MappedBody {
 public:
  SpooledBody(void* data, std::size_t size) : data_(data), size_(size) {}
  ~SpooledBody() override {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  [[nodiscard]] std::string_view bytes() const noexcept override {
    return data_ == nullptr ? std::string_view{} : std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  void* data_;
  std::size_t size_;
};

std::string spool_directory(const LimitSettings& limits) {
  if (!limits.spool_dir.empty()) return limits.spool_dir;
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

Error spool_error(const std::string& dir, const char* what, int err) {
  log().error("spool: {} in {}: {}", what, dir, std::strerror(err));
  return make_error(ErrorKind::unavailable, "spool_failed",
                    std::string("cannot ") + what + " for the request body in " + dir +
                        " ([limits] spool_dir): " + std::strerror(err));
}

// An unlinked temporary file the body is written to as it arrives.
class SpoolFile {
 public:
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;
  ~SpoolFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  static Result<std::unique_ptr<SpoolFile>> create(const std::string& dir) {
    // O_TMPFILE: a file with no name at all (Linux 3.11+, most file systems); otherwise mkstemp and unlink at once.
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::string path = dir + "/perftriage-spool-XXXXXX";
      fd = ::mkostemp(path.data(), O_CLOEXEC);
      if (fd < 0) return spool_error(dir, "create a temporary file", errno);
      ::unlink(path.c_str());
    }
    return std::unique_ptr<SpoolFile>(new SpoolFile(fd, dir));
  }

  std::optional<Error> write(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return spool_error(dir_, "write a temporary file", n < 0 ? errno : ENOSPC);
      data += n;
      size -= static_cast<std::size_t>(n);
      size_ += static_cast<std::size_t>(n);
    }
    return std::nullopt;
  }

  Result<std::shared_ptr<const MappedBody>> map() {
    if (size_ == 0) return std::shared_ptr<const MappedBody>(std::make_shared<SpooledBody>(nullptr, 0));
    void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (data == MAP_FAILED) return spool_error(dir_, "map the temporary file", errno);
    ::close(fd_);  // the mapping keeps the file
    fd_ = -1;
    return std::shared_ptr<const MappedBody>(std::make_shared<SpooledBody>(data, size_));
  }

 private:
  SpoolFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  int fd_;
  std::string dir_;
  std::size_t size_ = 0;
};

// ---- sessions ---------------------------------------------------------------------------------------------------

struct Pools {
  WorkPool& read;
  WorkPool& heavy;
  WorkPool& compute;
  ClientLimiter& per_client;  // the compute pool's share per client
  ResponseCache& cache;
};

// The setting that sizes a pool's queue, named in its 503.
const char* queue_setting(const WorkPool& pool) {
  if (pool.name() == "heavy") return "[server] heavy_queue, serve --heavy-queue";
  if (pool.name() == "compute") return "[server] compute_queue, serve --compute-queue";
  return "[server] read_queue, serve --read-queue";
}

ApiResponse queue_full(const WorkPool& pool) {
  auto busy = error_response(make_error(ErrorKind::unavailable, "queue_full",
                                        "the " + pool.name() + " queue is full (" + std::to_string(pool.queue_limit()) +
                                            " requests waiting; " + queue_setting(pool) + "); retry after 1 s"));
  busy.headers.emplace_back("Retry-After", "1");
  return busy;
}

ApiResponse client_over_share(const ClientLimiter& limiter) {
  auto api = error_response(
      make_error(ErrorKind::too_many_requests, "too_many_requests",
                 "this client already has " + std::to_string(limiter.per_client()) +
                     " classify or label requests waiting or running ([server] compute_per_client); retry after " +
                     kRetryAfterClient + " s"));
  api.headers.emplace_back("Retry-After", kRetryAfterClient);
  return api;
}

class Session;

// What the acceptor and every session share: the count of open connections (the cap) and the drain.
struct Hub {
  std::atomic<std::size_t> open{0};
  std::atomic<bool> draining{false};
  std::mutex mutex;
  std::list<std::weak_ptr<Session>> sessions;
  std::function<void()> on_drained;  // called when the last connection closes while draining
};

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
    const auto unauthorized = authorize(head_, route, app_);
    record_.token_name = head_.token_name;  // set by authorize for a valid token, refused (403) or not
    if (unauthorized) {
      // Decided from the head alone: the body is never read, so the connection cannot be reused.
      return respond(error_response(*unauthorized), header.version(), false, false);
    }
    if (auto refused = unknown_parameter(head_, route)) {
      return respond(error_response(*refused), header.version(), false, false);
    }
    const std::size_t server_limit = app_.settings().max_body_bytes;
    limit_ = route.max_body_bytes == 0 ? server_limit : std::min(route.max_body_bytes, server_limit);
    limit_is_setting_ = route.max_body_bytes == 0 || route.max_body_bytes >= server_limit;
    lane_ = route.lane;
    cacheable_ = route.cacheable;
    if (lane_ == Lane::compute) {
      // Decided before the body is read: a client over its share costs a header, not its upload. The slot is held
      // while the body arrives (its memory is the client's too) and until the work is done.
      slot_ = pools_.per_client.try_enter(client_key(head_.token_name, remote_));
      if (!slot_) return respond(client_over_share(pools_.per_client), header.version(), false, false);
    }
    if (route.header_check) {
      if (auto refused = route.header_check(head_, app_)) {
        // The body is never read, so the connection cannot be reused.
        return respond(error_response(*refused), header.version(), false, false);
      }
    }
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
    auto file = SpoolFile::create(spool_directory(limits()));
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
    if (!queued) respond(queue_full(pool), version, keep_alive, head);
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
        std::make_shared<Session>(std::move(socket), app, router,
                                  Pools{read_pool, heavy_pool, compute_pool, *per_client, cache}, hub)
            ->start();
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
    std::vector<std::shared_ptr<Session>> live;
    {
      std::lock_guard lock(hub->mutex);
      for (auto& w : hub->sessions) {
        if (auto s = w.lock()) live.push_back(std::move(s));
      }
    }
    for (auto& s : live) s->drain();
    live.clear();  // outside the lock: the last reference may end a session, which takes the lock
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
