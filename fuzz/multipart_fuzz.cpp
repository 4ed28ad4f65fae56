// multipart/form-data bodies (POST /uploads, /classify, artifacts): parse_multipart(body, Content-Type header,
// max_parts) and parse_multipart_views, which must agree part for part.
// Input (FuzzedDataProvider): max_parts by the last byte, the Content-Type as a random-length string, then the
// body (see make_seeds.py).
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz/fuzz_util.hpp"
#include "ingest/archive.hpp"

using namespace perftriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  const std::size_t max_parts = fdp.ConsumeIntegralInRange<std::size_t>(0, 8);
  const std::string content_type = fdp.ConsumeRandomLengthString(512);
  const std::string body = fdp.ConsumeRemainingBytesAsString();
  auto parts = ingest::parse_multipart(body, content_type, max_parts);
  auto views = ingest::parse_multipart_views(body, content_type, max_parts);
  FUZZ_CHECK(parts.ok() == views.ok(), "parse_multipart and parse_multipart_views disagree");
  if (!parts) {
    FUZZ_CHECK(!parts.error().code.empty(), parts.error().message);
    FUZZ_CHECK(parts.error().code == views.error().code, parts.error().code + " vs " + views.error().code);
    return 0;
  }
  FUZZ_CHECK(parts->size() <= max_parts, "more parts than max_parts");
  FUZZ_CHECK(parts->size() == views->size(), "part counts differ");
  std::size_t total = 0;
  for (std::size_t i = 0; i < parts->size(); ++i) {
    const auto& p = (*parts)[i];
    const auto& v = (*views)[i];
    total += p.body.size();
    FUZZ_CHECK(p.name == v.name && p.filename == v.filename && p.content_type == v.content_type && p.body == v.body,
               "part " + std::to_string(i) + " differs");
    FUZZ_CHECK(
        v.body.empty() || (v.body.data() >= body.data() && v.body.data() + v.body.size() <= body.data() + body.size()),
        "a part view points outside the body");
  }
  FUZZ_CHECK(total <= body.size(), "parts hold more bytes than the body");
  return 0;
}
