# All from Debian 12 packages (see README: make deps).
set(Boost_NO_WARN_NEW_VERSIONS ON)
find_package(Boost 1.81...<1.82 REQUIRED CONFIG)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(fmt 9 REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(CURL REQUIRED)
find_package(ZLIB REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(LibArchive REQUIRED)
find_package(simdjson REQUIRED)
# RE2 (libre2-dev): linear-time regular expressions for the labeler and the compile-log parser.
# Debian 12's re2 ships only a pkg-config file (re2.pc); a CMake package config (newer re2, vcpkg) is used when present.
find_package(re2 CONFIG QUIET)
if(TARGET re2::re2)
  add_library(perftriage_re2 INTERFACE)
  target_link_libraries(perftriage_re2 INTERFACE re2::re2)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
  add_library(perftriage_re2 INTERFACE)
  target_link_libraries(perftriage_re2 INTERFACE PkgConfig::RE2)
endif()
# libpq (libpq-dev): PostgreSQL as the second store, for several replicas on one database (schema/postgres.hpp).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
# zstd (libzstd-dev, pkg-config only on Debian 12): the zstd form of read answers (server/http/response_cache.hpp).
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# Operations: TOML config files (libtomlplusplus-dev, header-only), the JSON access log (libspdlog-dev,
# built on the fmt already used) and the Prometheus metrics registry and text exposition (prometheus-cpp-dev, core
# library only: /metrics is served by our own router, not by its embedded civetweb).
find_package(tomlplusplus 3 REQUIRED)
find_package(spdlog 1.10 REQUIRED)
find_package(prometheus-cpp REQUIRED CONFIG)  # Debian ships it without a version file
# The command line (libcli11-dev, header-only): one App with a subcommand per command, --help listing every option
# with its default (server/cli/).
find_package(CLI11 2.1 REQUIRED CONFIG)
if(PERFTRIAGE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
