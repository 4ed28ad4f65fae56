// parse_bounded_json (every JSON body: /label, upload meta, webhooks, taxonomies): the pre-scan must refuse what
// is too deep or too long BEFORE nlohmann recurses, and what it accepts must really be within the limits.
// Input (FuzzedDataProvider): the limits from the last bytes, the text is the rest.
#include <fuzzer/FuzzedDataProvider.h>

#include "common/bounded_json.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;

namespace {

std::size_t depth_of(const nlohmann::json& j) {  // recursion bounded by the limit checked before
  std::size_t deepest = 0;
  if (j.is_object() || j.is_array()) {
    for (const auto& v : j) deepest = std::max(deepest, depth_of(v));
    return deepest + 1;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  JsonLimits limits;
  limits.max_depth = fdp.ConsumeIntegralInRange<std::size_t>(0, 200);
  limits.max_bytes = fdp.ConsumeBool() ? limits.max_bytes : fdp.ConsumeIntegralInRange<std::size_t>(0, 4096);
  const std::string text = fdp.ConsumeRemainingBytesAsString();
  auto j = parse_bounded_json(text, "fuzz", limits);
  if (!j) {
    FUZZ_CHECK(!j.error().code.empty(), j.error().message);
    return 0;
  }
  FUZZ_CHECK(text.size() <= limits.max_bytes, "a text over max_bytes was accepted");
  const std::size_t depth = depth_of(*j);
  FUZZ_CHECK(depth <= limits.max_depth,
             "accepted JSON of depth " + std::to_string(depth) + " over max_depth " + std::to_string(limits.max_depth));
  const std::string out = perftriage::dump_json(*j);
  auto again = parse_bounded_json(out, "fuzz", JsonLimits{limits.max_depth, out.size()});
  FUZZ_CHECK(again.ok(), "the dump of accepted JSON is refused: " + out);
  return 0;
}
