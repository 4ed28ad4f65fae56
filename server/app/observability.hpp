#pragma once
// Metrics (Prometheus text format at GET /metrics) and the JSON access log (one line per request on stderr).
// The transport reports every request here; services report what they count (rows ingested, refused uploads,
// webhook deliveries). Gauges that live in the database (outbox depth, database and WAL size) are read at scrape time.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/app/settings.hpp"

namespace perftriage::server {

class AppContext;

struct RequestRecord {
  std::string request_id;
  std::string method;
  std::string route;   // the route's pattern ("/api/v1/runs/{key}"); "unmatched" when no route matched
  std::string target;  // the path as requested (no query: queries may carry secrets)
  unsigned status = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double seconds = 0;      // from the first byte of the header to the answer handed to the socket
  std::string token_name;  // never the token itself
  std::string remote;      // peer address
};

class Observability {
 public:
  explicit Observability(AccessLogSettings access_log = {});
  ~Observability();
  Observability(const Observability&) = delete;
  Observability& operator=(const Observability&) = delete;

  // Counts it and writes its access-log line (unless turned off, sampled out or over the cap) in one write(2), so
  // a line the kernel took survives a crash of the process the next instant.
  void request_done(const RequestRecord& r);
  void set_access_log(bool enabled);
  void connection_opened();
  void connection_closed();
  void connection_refused(std::string_view reason);  // over the connection cap, timeouts
  void rows_ingested(std::int64_t n);
  void upload_refused(std::string_view reason);  // the error code of a refused upload
  void webhook_delivery(std::string_view event, std::string_view outcome);
  void cache_lookup(std::string_view cache, bool hit);
  void cache_size(std::string_view cache, std::uint64_t bytes, std::uint64_t entries);  // what a cache holds now
  // The exposition: every metric above plus gauges read from the database now.
  std::string render(AppContext& app);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The version of this binary (perftriage_build_info, GET /api/v1).
std::string_view build_version() noexcept;

}  // namespace perftriage::server
