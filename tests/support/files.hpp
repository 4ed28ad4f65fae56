#pragma once
// Test files: fixtures by name (under PERFTRIAGE_FIXTURES, tests/fixtures/), whole-file reads and writes, fixture
// trees as the InputFiles the CLI makes (relative paths), and a temporary directory removed with its contents.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "ingest/records.hpp"

namespace perftriage::testing {

// The path of fixture `rel`: fixture("ingest/perf_2023_7col.csv"), fixture("seed_bmg_2.12").
inline std::string fixture(const std::string& rel) { return std::string(PERFTRIAGE_FIXTURES) + "/" + rel; }

// The whole file; "" when it cannot be read.
inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The bytes of fixture `rel`; a missing fixture fails the test.
inline std::string read_fixture(const std::string& rel) {
  const std::string path = fixture(rel);
  EXPECT_TRUE(std::filesystem::is_regular_file(path)) << "missing fixture " << rel;
  return read_bytes(path);
}

// The files directly in fixture folder `rel`, sorted by path.
inline std::vector<std::filesystem::path> fixture_files(const std::string& rel) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(fixture(rel)))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline void write_file(const std::filesystem::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << p;
}

// Every `ext` file under `root`, named relative to it, sorted by name.
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

// A fresh directory under the system temp folder (unique per process and per instance), removed with its contents
// when the object goes.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "perftriage-test") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            (std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the directory (not created).
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `bytes` to `name` inside the directory; returns its path.
  std::string write(const std::string& name, std::string_view bytes) const {
    write_file(path_ / name, bytes);
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace perftriage::testing
