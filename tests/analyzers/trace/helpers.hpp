#pragma once
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analyzers/trace/classify.hpp"
#include "tests/support/files.hpp"

namespace trace_test {

namespace tr = perftriage::analyzers::trace;

using perftriage::testing::fixture;
using perftriage::testing::read_fixture;

inline std::string shared_dir() { return std::string(PERFTRIAGE_SOURCE_DIR) + "/../shared/data"; }

inline const nlohmann::json& find(const nlohmann::json& r, const std::string& classifier) {
  for (const auto& f : r.at("findings")) {
    if (f.at("classifier") == classifier) return f;
  }
  static const nlohmann::json none;
  ADD_FAILURE() << "no finding " << classifier;
  return none;
}

inline std::string verdict(const nlohmann::json& r, const std::string& classifier) {
  return find(r, classifier).value("verdict", "?");
}

inline nlohmann::json classify_ok(const std::string& path, const tr::ClassifyOptions& o = {}) {
  auto r = tr::classify_file(path, o);
  if (!r) {
    ADD_FAILURE() << path << ": " << r.error().code << ": " << r.error().message;
    return nlohmann::json::object();
  }
  return *r;
}

}  // namespace trace_test
