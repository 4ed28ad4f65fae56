// GitHub webhook deliveries (POST /webhooks/github): the signature check over the exact body, then the payload
// through parse_bounded_json, parse_event, classify, and for a labelling event the labeler and plan_label_actions
// (the pure half of server/routes/webhook.cpp; the database part is not fuzzed).
// Input (FuzzedDataProvider): the secret as a random-length string, the payload is the rest; the event name, the
// bot login and the suppressed label are picked by the last bytes (see make_seeds.py).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>

#include "analyzers/labeler/labeler.hpp"
#include "common/bounded_json.hpp"
#include "fuzz/fuzz_util.hpp"
#include "server/bot/webhook.hpp"

using namespace perftriage;
namespace lb = perftriage::analyzers::labeler;
namespace wh = perftriage::server::webhook;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  static constexpr const char* kEvents[] = {"issues", "issue_comment", "ping", "pull_request", "push", ""};
  static constexpr const char* kBots[] = {"perftriage[bot]", "", "PerfTriage[Bot]"};
  const std::string event_name = fdp.PickValueInArray(kEvents);
  const std::string bot = fdp.PickValueInArray(kBots);
  const bool suppress_first = fdp.ConsumeBool();
  const std::string secret = fdp.ConsumeRandomLengthString(64);
  const std::string body = fdp.ConsumeRemainingBytesAsString();

  // The signature: the right one verifies (unless the secret is empty), a changed one never does.
  const std::string good = "sha256=" + wh::hmac_sha256_hex(secret, body);
  FUZZ_CHECK(wh::verify_signature(secret, body, good) == !secret.empty(), "the right signature");
  std::string bad = good;
  bad.back() = bad.back() == '0' ? '1' : '0';
  FUZZ_CHECK(!wh::verify_signature(secret, body, bad), "a wrong signature verifies");
  FUZZ_CHECK(!wh::verify_signature(secret, body, good.substr(7)), "a signature without sha256= verifies");

  auto payload = parse_bounded_json(body, "webhook payload");
  if (!payload) return 0;
  auto event = wh::parse_event(event_name, *payload);
  if (!event) {
    FUZZ_CHECK(!event.error().code.empty(), event.error().message);
    return 0;
  }
  (void)wh::has_label_command(event->comment);
  const wh::Disposition what = wh::classify(*event, bot);
  (void)wh::to_string(what);
  if (what != wh::Disposition::label) return 0;
  // The labeler has its own harness; keep its input here to what the labeler is known to handle quickly.
  if (event->title.size() + event->body.size() > (16u << 10)) return 0;

  static const lb::Taxonomy kTaxonomy = [] {
    auto t = lb::load_taxonomy("torch-xpu-ops");
    if (!t) std::abort();
    return std::move(t).value();
  }();
  const lb::IssueInput input = wh::to_issue_input(*event);
  const lb::LabelResult result = lb::label_issue(input, kTaxonomy);
  std::set<std::string> suppressed;
  if (suppress_first && !result.labels.empty()) suppressed.insert(result.labels.front());
  const auto actions = wh::plan_label_actions(*event, result, kTaxonomy, suppressed, lb::render_comment(input, result));
  FUZZ_CHECK(!actions.empty(), "no upsert_comment action");
  for (const auto& a : actions) (void)perftriage::dump_json(a.payload);
  return 0;
}
