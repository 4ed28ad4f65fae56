#pragma once
// The server's own lines (what it did or could not do, not the access log): one spdlog logger for the process, each
// line "perftriage: <level>: <message>" on stderr, flushed as it is written so that a crash loses none. systemd's
// journal and `2>file` both keep them; levels let a reader grep the warnings and errors out of the info. Made on
// first use; a server writes its first line when it starts listening (http_server.cpp says why then).
#include <memory>

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace perftriage {

inline spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("perftriage", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("perftriage: %l: %v");
    l->set_level(spdlog::level::info);
    l->flush_on(spdlog::level::info);
    return l;
  }();
  return *logger;
}

}  // namespace perftriage
