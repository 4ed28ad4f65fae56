// Uploaded archives (zip, tar, tar.gz, bare .csv.gz): detect_archive and unpack_archive with small limits, then
// each member through the path and CSV parsers, as the ingest service does.
#include "fuzz/fuzz_util.hpp"
#include "ingest/archive.hpp"
#include "ingest/artifact_path.hpp"
#include "ingest/benchmark_csv.hpp"
#include "ingest/reference_csv.hpp"

using namespace perftriage;

namespace {
bool has_dotdot_segment(std::string_view path) {
  while (true) {
    const auto slash = path.find('/');
    if (path.substr(0, slash) == "..") return true;
    if (slash == std::string_view::npos) return false;
    path.remove_prefix(slash + 1);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::as_view(data, size);
  (void)ingest::detect_archive(bytes);
  ingest::UnpackLimits limits;
  limits.max_entries = 64;
  limits.max_entry_bytes = 1u << 20;
  limits.max_total_bytes = 4u << 20;
  auto files = ingest::unpack_archive(bytes, "fuzz/upload.csv.gz", limits);
  if (!files) {
    FUZZ_CHECK(!files.error().code.empty(), files.error().message);
    return 0;
  }
  FUZZ_CHECK(files->size() <= limits.max_entries, "more members than max_entries");
  std::size_t total = 0;
  for (const auto& f : *files) {
    FUZZ_CHECK(f.bytes.size() <= limits.max_entry_bytes, f.path);
    total += f.bytes.size();
    FUZZ_CHECK(!has_dotdot_segment(f.path), "a member path with '..' was not refused: " + f.path);
    FUZZ_CHECK(f.path.empty() || f.path.front() != '/', f.path);
    const ingest::Axes axes = ingest::axes_from_path(f.path);
    switch (ingest::sniff_csv(f.bytes)) {
      case ingest::CsvFlavor::results: (void)ingest::parse_results_csv(f.bytes, f.path); break;
      case ingest::CsvFlavor::reference: (void)ingest::parse_reference_csv(f.bytes, f.path, axes); break;
      case ingest::CsvFlavor::unknown: break;
    }
  }
  FUZZ_CHECK(total <= limits.max_total_bytes, "members over max_total_bytes");
  return 0;
}
