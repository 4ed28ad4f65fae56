// Writes bench/nightly.hpp's generated nightly (60 files: 3 suites x 5 dtypes x 2 modes x 2 kinds, MODELS models a
// file) as one .tar.gz in the layout CI uploads, for the load and year benchmarks' uploaders (bench/load.sh,
// bench/year.sh). The run key, platform and date are not in the archive: they are the upload's query parameters
// (POST /api/v1/uploads?run=&platform=&created_at=) or `perftriage ingest` flags, as for a real nightly.
//   gen_nightly --out nightly.tar.gz [--models 200] [--seed 7] [--stable]
// --stable: each model keeps the level gen_history_db's history has (seed adds 1% noise), so an upload looks like
// the next night of that history rather than a new one.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/nightly.hpp"
#include "tests/support/archive_writer.hpp"

int main(int argc, char** argv) {
  std::string out;
  int models = 200;
  unsigned seed = 7;
  bool stable = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--out" && has_value) {
      out = argv[++i];
    } else if (a == "--models" && has_value) {
      models = std::atoi(argv[++i]);
    } else if (a == "--seed" && has_value) {
      seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--stable") {
      stable = true;
    } else {
      out.clear();
      break;
    }
  }
  if (out.empty() || models <= 0) {
    std::cerr << "usage: gen_nightly --out PATH.tar.gz [--models 200] [--seed 7] [--stable]\n";
    return 2;
  }
  const auto files = perftriage::bench::make_nightly(models, seed, 1.0, stable);
  std::size_t rows = 0;
  for (const auto& f : files) rows += static_cast<std::size_t>(std::count(f.bytes.begin(), f.bytes.end(), '\n')) - 1;
  const std::string bytes = perftriage::testing::make_archive(files, perftriage::testing::ArchiveFormat::tar_gz);
  std::ofstream file(out, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file.flush()) {
    std::cerr << "gen_nightly: cannot write " << out << "\n";
    return 1;
  }
  std::cout << fmt::format("{}: {} files, {} rows, {:.2f} MB tar.gz\n", out, files.size(), rows, bytes.size() / 1e6);
  return 0;
}
