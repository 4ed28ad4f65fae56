#include "server/http/response_cache.hpp"

#include <openssl/evp.h>
#include <zlib.h>
#include <zstd.h>

#include <array>
#include <cstdlib>
#include <iterator>

#include "common/strings.hpp"
#include "server/app/app_context.hpp"

namespace perftriage::server {
namespace {

// Smaller bodies are sent as they are: the coding's header and the extra round of work are not worth it.
constexpr std::size_t kCompressMinBytes = 1024;
// Above this, each coding trades ratio for speed (gzip and zstd level 1): a large miss must not spend seconds
// compressing. Below it, gzip's default level (6) and zstd's level 6, which on the API's JSON (backlog, slow cases)
// is 10-14 % smaller than gzip's and takes less time; zstd's default (3) was 5-23 % larger than gzip's there.
constexpr std::size_t kCompressFastAbove = 1u << 20;
constexpr int kZstdLevel = 6;
// What an entry costs beyond its strings: the list node, the index slot, the shared_ptr's control block.
constexpr std::size_t kEntryOverhead = 256;
constexpr const char* kCacheControl = "no-cache";
constexpr const char* kVary = "Accept-Encoding";

bool has_header(const ApiResponse& response, std::string_view name) {
  for (const auto& [n, v] : response.headers) {
    if (iequals(n, name)) return true;
  }
  return false;
}

// The q value of one Accept-Encoding element ("gzip;q=0.5"): 1 when absent, 0 when unreadable.
double quality(std::string_view params) {
  for (auto& p : split(params, ';', EmptyParts::skip)) {
    const std::string t = lower(trim(p));
    if (t.rfind("q=", 0) != 0) continue;
    char* end = nullptr;
    const double q = std::strtod(t.c_str() + 2, &end);
    return end == t.c_str() + 2 ? 0.0 : q;
  }
  return 1.0;
}

// The entity tags of an If-None-Match list, W/ dropped (weak comparison).
std::vector<std::string_view> entity_tags(std::string_view list) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ' ' || list[i] == '\t' || list[i] == ',')) ++i;
    if (list.substr(i, 2) == "W/") i += 2;
    if (i >= list.size()) break;
    if (list[i] == '"') {
      const auto close = list.find('"', i + 1);
      if (close == std::string_view::npos) break;
      out.push_back(list.substr(i, close - i + 1));
      i = close + 1;
    } else {  // "*" or a malformed element: up to the next comma
      const auto comma = list.find(',', i);
      const auto end = comma == std::string_view::npos ? list.size() : comma;
      out.push_back(trim(list.substr(i, end - i)));
      i = end;
    }
  }
  return out;
}

void append_field(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

std::size_t node_bytes(const std::string& key, const Representation& rep) {
  return key.size() + rep.bytes() + kEntryOverhead;
}

}  // namespace

Negotiation Negotiation::of(const ApiRequest& request) {
  return Negotiation{request.method == "GET" || request.method == "HEAD",
                     accepted_codings(request.header("accept-encoding")), request.header("if-none-match")};
}

std::size_t Representation::bytes() const {
  std::size_t n = content_type.size() + body.size() + etag.size();
  for (const Variant* v : {&gzip, &zstd}) n += v->bytes.size() + v->etag.size();
  for (const auto& [k, v] : headers) n += k.size() + v.size();
  return n;
}

const Variant* Representation::variant(Coding coding) const {
  const Variant* v = coding == Coding::gzip ? &gzip : coding == Coding::zstd ? &zstd : nullptr;
  return v && !v->bytes.empty() ? v : nullptr;
}

Codings accepted_codings(std::string_view accept_encoding) {
  std::optional<double> gzip, zstd, any;
  for (auto& element : split(accept_encoding, ',', EmptyParts::skip)) {
    const auto semi = element.find(';');
    const std::string coding = lower(trim(std::string_view(element).substr(0, semi)));
    const double q = semi == std::string::npos ? 1.0 : quality(std::string_view(element).substr(semi + 1));
    if (coding == "gzip" || coding == "x-gzip") gzip = q;
    if (coding == "zstd") zstd = q;
    if (coding == "*") any = q;
  }
  const double q_zstd = zstd.value_or(any.value_or(0)), q_gzip = gzip.value_or(any.value_or(0));
  Codings out;
  if (q_zstd > 0 && q_zstd >= q_gzip) out.push_back(Coding::zstd);
  if (q_gzip > 0) out.push_back(Coding::gzip);
  if (q_zstd > 0 && q_zstd < q_gzip) out.push_back(Coding::zstd);
  return out;
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  const std::string_view mine = etag.substr(0, 2) == "W/" ? etag.substr(2) : etag;
  for (const auto tag : entity_tags(if_none_match)) {
    if (tag == "*" || tag == mine) return true;
  }
  return false;
}

std::string strong_etag(std::string_view body, std::string_view suffix) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(body.data(), body.size(), md.data(), &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < 8; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  out += suffix;
  out += '"';
  return out;
}

std::optional<std::string> gzip_bytes(std::string_view bytes) {
  z_stream z{};
  const int level = bytes.size() > kCompressFastAbove ? Z_BEST_SPEED : Z_DEFAULT_COMPRESSION;
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return std::nullopt;
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

std::optional<std::string> zstd_bytes(std::string_view bytes) {
  const int level = bytes.size() > kCompressFastAbove ? 1 : kZstdLevel;
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), level);
  if (ZSTD_isError(n)) return std::nullopt;
  out.resize(n);
  return out;
}

bool validated(const ApiResponse& response) {
  if (response.status != 200 || has_header(response, "cache-control")) return false;
  const std::string type = media_type(response.content_type);
  return type == "application/json" || type == "text/csv" || type == "text/markdown" || type == "text/plain";
}

Representation represent(ApiResponse response, const Codings& make) {
  Representation rep;
  rep.content_type = std::move(response.content_type);
  rep.headers = std::move(response.headers);
  rep.etag = strong_etag(response.body);
  const bool compressible = response.body.size() >= kCompressMinBytes && response.body.size() <= UINT32_MAX;
  for (const Coding coding : compressible ? make : Codings{}) {
    const bool gzip = coding == Coding::gzip;
    auto bytes = gzip ? gzip_bytes(response.body) : zstd_bytes(response.body);
    if (!bytes || bytes->size() >= response.body.size()) continue;
    Variant& v = gzip ? rep.gzip : rep.zstd;
    v.etag = rep.etag.substr(0, rep.etag.size() - 1) + (gzip ? "-gz\"" : "-zst\"");
    v.bytes = std::move(*bytes);
  }
  rep.body = std::move(response.body);
  rep.data_scopes = std::move(response.data_scopes);
  return rep;
}

ApiResponse answer(const std::shared_ptr<const Representation>& shared, const Negotiation& negotiation) {
  const Representation& rep = *shared;
  Coding coding = Coding::identity;
  const Variant* variant = nullptr;
  for (const Coding c : negotiation.codings) {  // the most preferred coding the answer has
    variant = rep.variant(c);
    if (variant) {
      coding = c;
      break;
    }
  }
  const std::string& etag = variant ? variant->etag : rep.etag;
  ApiResponse out;
  out.headers = rep.headers;
  out.headers.emplace_back("ETag", etag);
  out.headers.emplace_back("Cache-Control", kCacheControl);
  out.headers.emplace_back("Vary", kVary);
  if (!negotiation.if_none_match.empty() && etag_matches(negotiation.if_none_match, etag)) {
    out.status = 304;  // no body, no Content-Type (server/http/http_server.cpp sends neither)
    out.content_type.clear();
    return out;
  }
  out.status = 200;
  out.content_type = rep.content_type;
  if (variant) out.headers.emplace_back("Content-Encoding", coding == Coding::gzip ? "gzip" : "zstd");
  out.shared_body = std::shared_ptr<const std::string>(shared, variant ? &variant->bytes : &rep.body);  // no copy
  return out;
}

ApiResponse finish(ApiResponse response, const Negotiation& negotiation) {
  if (!negotiation.read || !validated(response)) return response;
  // Not cached: only the coding the client prefers is made.
  const Codings make = negotiation.codings.empty() ? Codings{} : Codings{negotiation.codings.front()};
  return answer(std::make_shared<const Representation>(represent(std::move(response), make)), negotiation);
}

std::string cache_key(const ApiRequest& request) {
  std::string key = "GET ";
  append_field(key, request.path);
  for (const auto& [name, value] : request.query) {  // a std::map: already in canonical (sorted) order
    key += '&';
    append_field(key, name);
    key += '=';
    append_field(key, value);
  }
  return key;
}

// ---- the cache --------------------------------------------------------------------------------------------------

Freshness Freshness::of(AppContext& app, const DataView& now) {
  return Freshness{now, [&app](const std::vector<std::string>& scopes) { return app.newest_stamp(scopes); }};
}

bool Freshness::current(const std::vector<std::string>& scopes, const DataView& made) const {
  if (scopes.empty() || made.top < 0) return made.generation == now.generation;
  return newest_stamp(scopes) <= made.top;
}

ResponseCache::Ticket ResponseCache::lookup(const ApiRequest& head, AppContext& app, const Negotiation& negotiation) {
  Ticket ticket;
  if (!enabled() || (head.method != "GET" && head.method != "HEAD")) return ticket;
  ticket.view = app.data_view();
  if (!ticket.view) return ticket;
  ticket.key = cache_key(head);
  const auto entry = find(ticket.key, Freshness::of(app, *ticket.view));
  app.obs().cache_lookup("response", entry != nullptr);
  if (entry) {
    ticket.hit = answer(entry, negotiation);
  } else {
    app.obs().cache_size("response", bytes(), entries());  // a stale entry may just have gone
  }
  return ticket;
}

ApiResponse ResponseCache::fill(const Ticket& ticket, ApiResponse response, const Negotiation& negotiation,
                                AppContext& app) {
  if (!ticket.view || !validated(response)) return finish(std::move(response), negotiation);
  // Kept in every coding: the next client may take another one than the first.
  auto rep = std::make_shared<const Representation>(represent(std::move(response), {Coding::zstd, Coding::gzip}));
  // What a write committed while the handler ran did to its scopes: the view is taken again before the check.
  if (const auto now = app.data_view()) {
    if (put(ticket.key, *ticket.view, rep, Freshness::of(app, *now))) {
      app.obs().cache_size("response", bytes(), entries());
    }
  }
  return answer(rep, negotiation);
}

std::shared_ptr<ResponseCache::Flight> ResponseCache::join_flight(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto& flight = flights_[key];
  if (!flight) flight = std::make_shared<Flight>();
  ++flight->users;
  return flight;
}

void ResponseCache::leave_flight(const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = flights_.find(key);
  if (it != flights_.end() && --it->second->users == 0) flights_.erase(it);
}

ApiResponse ResponseCache::run(const Ticket& ticket, const Negotiation& negotiation, AppContext& app,
                               const std::function<ApiResponse()>& handler) {
  if (!ticket.view) return fill(ticket, handler(), negotiation, app);
  const auto flight = join_flight(ticket.key);
  struct Leave {
    ResponseCache* cache;
    const std::string& key;
    ~Leave() { cache->leave_flight(key); }
  } leave{this, ticket.key};
  std::lock_guard computing(flight->computing);
  // Its turn: the view now, not the one it arrived with. The request before it on the key may have filled the
  // entry while it waited; a write may have come meanwhile, and an answer computed under the old view could never
  // be stored (each waiting request would compute its own).
  Ticket turn{std::nullopt, ticket.key, app.data_view()};
  if (!turn.view) return fill(turn, handler(), negotiation, app);
  if (const auto entry = find(turn.key, Freshness::of(app, *turn.view))) return answer(entry, negotiation);
  return fill(turn, handler(), negotiation, app);
}

std::shared_ptr<const Representation> ResponseCache::find(const std::string& key, const Freshness& fresh) {
  std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  if (!fresh.current(it->second->entry->data_scopes, it->second->made)) {
    erase_locked(it->second);
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->entry;
}

bool ResponseCache::put(const std::string& key, const DataView& made, std::shared_ptr<const Representation> entry,
                        const Freshness& fresh) {
  const std::size_t size = node_bytes(key, *entry);
  if (!enabled() || size > max_bytes_ / 8) return false;
  if (!fresh.current(entry->data_scopes, made)) return false;  // a write it may not have seen: stale already
  std::lock_guard lock(mutex_);
  if (const auto it = index_.find(key); it != index_.end()) erase_locked(it->second);
  while (!lru_.empty() && bytes_ + size > max_bytes_) erase_locked(std::prev(lru_.end()));
  lru_.push_front(Node{key, std::move(entry), size, made});
  index_.emplace(key, lru_.begin());
  bytes_ += size;
  return true;
}

void ResponseCache::erase_locked(std::list<Node>::iterator it) {
  bytes_ -= it->bytes;
  index_.erase(it->key);
  lru_.erase(it);
}

std::size_t ResponseCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::size_t ResponseCache::entries() const {
  std::lock_guard lock(mutex_);
  return lru_.size();
}

}  // namespace perftriage::server
