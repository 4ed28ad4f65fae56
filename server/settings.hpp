#pragma once
// Plain settings, built once in the command that starts the service.
#include <cstddef>
#include <string>

#include "ingest/archive.hpp"

namespace perftriage::server {

struct Settings {
  std::string db_path = "var/perftriage.sqlite";
  std::string listen_host = "127.0.0.1";
  unsigned short listen_port = 8080;
  unsigned threads = 2;
  std::size_t max_body_bytes = 256ull << 20;  // one upload: a whole nightly archive fits
  std::size_t max_header_bytes = 16 * 1024;
  double slow_threshold = 1.0;
  ingest::UnpackLimits unpack;
  std::string web_dir;  // dashboard assets; "" = built-in path
  bool demo = false;
};

}  // namespace perftriage::server
