#pragma once
// Plain settings, built once in the command that starts the service.
#include <cstddef>
#include <string>

#include "ingest/archive.hpp"

namespace perftriage::server {

struct GitHubSettings {
  std::string api_base = "https://api.github.com";  // GitHub Enterprise Server: https://HOST/api/v3
  std::string token;                                // empty = dry run: compute and record, send nothing
  std::string webhook_secret;                       // HMAC-SHA256 key of X-Hub-Signature-256
  std::string bot_login = "perftriage[bot]";        // events caused by this login are ignored
  std::string taxonomy = "torch-xpu-ops";
  int max_attempts = 8;                             // then the outbox action is marked failed, visibly
  double min_mutation_interval_s = 1.0;             // one mutation at a time, at least this far apart
  long connect_timeout_ms = 5000;
  long request_timeout_ms = 20000;                  // a request hanging longer is retried
  long backoff_base_ms = 1000;                      // retries wait base * 2^(attempts-1) ...
  long backoff_cap_ms = 15 * 60 * 1000;             // ... at most this
};

struct Settings {
  std::string db_path = "var/perftriage.sqlite";
  std::string listen_host = "127.0.0.1";
  unsigned short listen_port = 8080;
  unsigned threads = 2;
  std::size_t max_body_bytes = 256ull << 20;  // one upload: a whole nightly archive fits
  std::size_t max_header_bytes = 16 * 1024;
  // Request handling runs on two bounded pools, never on the I/O threads (see server/work_pool.hpp): reads, and
  // heavy work (ingest, classify, label, webhooks). A full queue answers 503 with Retry-After.
  unsigned read_workers = 4;
  std::size_t read_queue = 256;
  unsigned heavy_workers = 2;
  std::size_t heavy_queue = 8;
  double slow_threshold = 1.0;
  ingest::UnpackLimits unpack;
  std::string web_dir;  // dashboard assets; "" = built-in path
  bool demo = false;
  GitHubSettings github;
};

}  // namespace perftriage::server
