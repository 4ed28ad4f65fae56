#pragma once
// Validators, compression and the response cache of the read routes.
//
// Every 200 answer in JSON, CSV, markdown or plain text (unless its handler set its own Cache-Control, as /metrics
// does with no-store) carries a strong ETag (16 hex digits of the SHA-256 of its bytes), `Cache-Control: no-cache`
// (a browser keeps it and revalidates) and `Vary: Accept-Encoding`; `If-None-Match` naming it answers 304 with no
// body. A client that accepts zstd or gzip gets bodies of 1 KiB and more compressed, each coding with its own ETag
// (suffix "-zst" or "-gz": a strong validator names one sequence of bytes). Of the two, the higher q wins, zstd on a
// tie (smaller, and faster to decode). br is not offered.
//
// The cache keeps such answers of GET (and HEAD, which reuses GET's entry) on Lane::read routes, keyed by the path
// and the query in canonical order: no read route looks at a request header, and authorization is decided from the
// head before the lookup, so one answer fits every caller allowed to ask. An entry is stored under the data view
// (AppContext::data_view) taken BEFORE its handler ran, and is served only while what it read is unchanged:
//   - an answer that names the data stamp scopes it read (ApiResponse::data_scopes: its runs, its platform, its tags;
//     schema/data_stamps.hpp) stays current until a committed write moves one of those scopes past the view's `top`;
//     an upload of a new run of one platform leaves the answers about other platforms and other runs in place;
//   - any other answer stays current only while the generation is the same: any committed write makes it stale.
// Both come from the database file, so writes of another process (`perftriage ingest --db`) count the same; a write
// committed while a handler ran makes its answer stale at once (never stored). Stale entries are dropped when they
// are next looked up or when room is needed. Bounded in bytes ([cache] max_mb); an answer above an eighth of that is
// never kept; the least recently used entries go first. A hit is answered on the I/O thread, its bytes shared with
// the entry (ApiResponse::shared_body), not copied.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/app/app_context.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server {

// The content codings an answer may be sent in. identity is always acceptable (RFC 9110 12.5.3: a server may send
// it whatever Accept-Encoding says).
enum class Coding : std::uint8_t { identity, gzip, zstd };
using Codings = std::vector<Coding>;  // most preferred first; identity is implied after them

// What of a request picks the bytes of an answer and its status: the codings it takes, and its validators.
struct Negotiation {
  bool read = false;          // GET or HEAD: only their answers get validators (and compression, 304)
  Codings codings;            // accepted_codings(Accept-Encoding)
  std::string if_none_match;  // the If-None-Match header as sent
  static Negotiation of(const ApiRequest& request);
};

// One compressed form of an answer's body.
struct Variant {
  std::string bytes;  // empty: none (the body is small, or did not get smaller)
  std::string etag;   // the identity ETag with the coding's suffix
};

// An answer with its validators, identity and (for bodies of 1 KiB and more, when smaller) zstd and gzip.
struct Representation {
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  // the handler's own (Content-Disposition, ...)
  std::string body;
  std::string etag;  // "\"<16 hex>\""
  Variant gzip;
  Variant zstd;
  std::vector<std::string> data_scopes;  // what the answer read (ApiResponse::data_scopes); empty: anything
  [[nodiscard]] std::size_t bytes() const;
  [[nodiscard]] const Variant* variant(Coding coding) const;  // nullptr: identity, or none made
};

// The codings of an Accept-Encoding header that this server makes (zstd, gzip or x-gzip, or "*" for those not
// named), with q > 0, highest q first, zstd first on a tie. An explicit q=0 refuses a coding "*" would take.
Codings accepted_codings(std::string_view accept_encoding);
// RFC 9110 If-None-Match: "*", or a list of entity tags compared weakly (W/"x" matches "x").
bool etag_matches(std::string_view if_none_match, std::string_view etag);
std::string strong_etag(std::string_view body, std::string_view suffix = {});
// gzip (RFC 1952) of `bytes`; nullopt when zlib fails.
std::optional<std::string> gzip_bytes(std::string_view bytes);
// A zstd frame (RFC 8878) of `bytes`, its size in the header; nullopt when libzstd fails.
std::optional<std::string> zstd_bytes(std::string_view bytes);
// A 200 answer that gets validators (and may be cached): JSON, CSV, markdown or text/plain, no Cache-Control of its
// handler's own.
bool validated(const ApiResponse& response);
// The representation of a validated answer, with a variant for each of `make` (a cached answer: every coding).
Representation represent(ApiResponse response, const Codings& make);
// The answer to send for a representation: the variant the client takes, or 304 when it already has it. Its body is
// shared with `rep` (ApiResponse::shared_body).
ApiResponse answer(const std::shared_ptr<const Representation>& rep, const Negotiation& negotiation);
// Any answer on its way out: a validated one to a GET or HEAD gets its validators (and compression, 304); others
// pass as they are.
ApiResponse finish(ApiResponse response, const Negotiation& negotiation);
// GET's entry for a GET or HEAD: the path and every query parameter, in canonical order, length-prefixed.
std::string cache_key(const ApiRequest& request);

// Whether an entry is still current: the data view now, and the newest stamp among a list of scopes as of it
// (AppContext::newest_stamp). Plain values so that the cache can be tested without a database.
struct Freshness {
  DataView now;
  std::function<std::int64_t(const std::vector<std::string>&)> newest_stamp;
  static Freshness of(AppContext& app, const DataView& now);
  // Whether an entry that read `scopes` (none: anything), made under the view `made`, is current now.
  [[nodiscard]] bool current(const std::vector<std::string>& scopes, const DataView& made) const;
};

class ResponseCache {
 public:
  explicit ResponseCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  // A lookup made before the handler runs: `hit` is the answer to send now; otherwise `key` and `view` are what
  // fill() stores the handler's answer under (no view: nothing will be stored).
  struct Ticket {
    std::optional<ApiResponse> hit;
    std::string key;
    std::optional<DataView> view;
  };
  // GET / HEAD only (others get an empty ticket); counts the lookup (app.obs().cache_lookup("response", hit)).
  Ticket lookup(const ApiRequest& head, AppContext& app, const Negotiation& negotiation);
  // After the handler (on the pool thread): the answer to send, stored when the ticket allows and it is cacheable.
  ApiResponse fill(const Ticket& ticket, ApiResponse response, const Negotiation& negotiation, AppContext& app);
  // A miss, on the pool thread: runs `handler` and fills the cache, one request per key at a time. When a write has
  // just made an answer stale, every connection asking for it misses at once; the first one computes it and the
  // others, waiting on the same key, answer from its entry instead of computing it again (single flight). Each
  // takes the data view again once its turn comes, so a request that waited across a later write does not compute
  // under the view it arrived with (an answer no one could store).
  ApiResponse run(const Ticket& ticket, const Negotiation& negotiation, AppContext& app,
                  const std::function<ApiResponse()>& handler);

  // The entry of `key` when it is current (a stale one is dropped).
  std::shared_ptr<const Representation> find(const std::string& key, const Freshness& fresh);
  // Stores an entry made under `made`; ignored when it is stale already (a write it may not have seen moved what it
  // read), or when it is larger than an eighth of the bound. Returns whether it was kept.
  bool put(const std::string& key, const DataView& made, std::shared_ptr<const Representation> entry,
           const Freshness& fresh);

  [[nodiscard]] bool enabled() const noexcept { return max_bytes_ > 0; }
  [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }
  [[nodiscard]] std::size_t bytes() const;
  [[nodiscard]] std::size_t entries() const;

 private:
  struct Node {
    std::string key;
    std::shared_ptr<const Representation> entry;
    std::size_t bytes;
    DataView made;
  };
  // One per key being computed; `users` counts the requests holding or waiting for it.
  struct Flight {
    std::mutex computing;
    std::size_t users = 0;
  };
  std::shared_ptr<Flight> join_flight(const std::string& key);
  void leave_flight(const std::string& key);
  void erase_locked(std::list<Node>::iterator it);

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::size_t bytes_ = 0;
  std::list<Node> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Node>::iterator> index_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights_;
};

}  // namespace perftriage::server
