#pragma once
// Test helpers: read fixture trees into InputFiles, the way the CLI names them (relative paths).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/records.hpp"

namespace perftriage::testing {

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<ingest::InputFile> read_tree(const std::filesystem::path& root, const std::string& ext = ".csv") {
  std::vector<ingest::InputFile> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ext) {
      out.push_back({std::filesystem::relative(e.path(), root).generic_string(), read_bytes(e.path())});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

inline std::string fixture(const std::string& rel) { return std::string(PERFTRIAGE_FIXTURES) + "/" + rel; }

}  // namespace perftriage::testing
