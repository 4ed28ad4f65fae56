// Artifact paths (upload paths, archive member names, `path=` query): axes_from_path and the normalisers.
#include "fuzz/fuzz_util.hpp"
#include "ingest/artifact_path.hpp"

using namespace perftriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view path = fuzz::as_view(data, size);
  const ingest::Axes axes = ingest::axes_from_path(path);
  (void)axes;
  FUZZ_CHECK(ingest::normalize_suite("").empty(), "normalize_suite(\"\")");
  // (a normaliser trims blanks first: "\t" normalises to "" as well)
  // Normalising is idempotent: a canonical spelling maps to itself.
  const std::string suite = ingest::normalize_suite(path);
  FUZZ_CHECK(ingest::normalize_suite(suite) == suite, suite);
  const std::string dtype = ingest::normalize_dtype(path);
  FUZZ_CHECK(ingest::normalize_dtype(dtype) == dtype, dtype);
  const std::string mode = ingest::normalize_mode(path);
  FUZZ_CHECK(ingest::normalize_mode(mode) == mode, mode);
  const std::string kind = ingest::normalize_kind(path);
  FUZZ_CHECK(ingest::normalize_kind(kind) == kind, kind);
  return 0;
}
