// A label model file (`tracker train`, [github] label_model, --model): parse_bounded_json then parse_model, a round
// trip through to_json, and predict on a fixed issue and on the input itself as an issue: every probability in
// [0, 1] (never NaN), at most three deciding words, votes highest first.
#include <cmath>

#include "analyzers/labeler/model.hpp"
#include "common/bounded_json.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;
namespace lb = perftriage::analyzers::labeler;

namespace {

void check_votes(const std::vector<lb::ModelVote>& votes) {
  for (std::size_t i = 0; i < votes.size(); ++i) {
    FUZZ_CHECK(votes[i].p >= 0 && votes[i].p <= 1, "a probability outside [0, 1] for " + votes[i].label);
    FUZZ_CHECK(votes[i].words.size() <= 3, "more than three deciding words");
    FUZZ_CHECK(i == 0 || votes[i - 1].p >= votes[i].p, "votes not highest first");
    (void)votes[i].reason();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::as_view(data, size);
  check_votes(lb::predict(lb::LabelModel{}, text, text));  // no labels: no votes, any text
  auto j = parse_bounded_json(text, "model");
  if (!j) return 0;
  auto m = lb::parse_model(*j);
  if (!m) {
    FUZZ_CHECK(!m.error().code.empty(), m.error().message);
    return 0;
  }
  const nlohmann::json again = lb::to_json(*m);
  auto reparsed = lb::parse_model(again);
  FUZZ_CHECK(reparsed.ok(), "to_json of a parsed model does not parse");
  FUZZ_CHECK(lb::to_json(*reparsed) == again, "to_json / parse_model round trip changes the model");
  check_votes(lb::predict(*m, "[BMG] huggingface amp_bf16 slower than eager on b580",
                          "| suite | model | speedup |\n| huggingface | T5Small | 0.8 |\nFAILED test_ops_xpu.py"));
  check_votes(lb::predict(*m, text, text));
  return 0;
}
