#pragma once
// The benchmark vocabulary: suites, dtypes, modes, E2E statuses, and combined cells such as
// `huggingface_amp_bf16_training`, `inference_amp-bf16`, `amp_bf16 / inference`.
#include <string>
#include <string_view>

namespace perftriage::analyzers::labeler {

std::string normalize_suite(std::string_view token);  // "huggingface" | "timm_models" | "torchbench" | ""
std::string normalize_dtype(std::string_view token);  // a taxonomy dtype key ("bfloat16", "amp_bf16", ...) | ""
std::string normalize_mode(std::string_view token);   // "inference" | "training" | ""

struct Combined {
  std::string suite, dtype, mode;
  [[nodiscard]] bool any() const { return !suite.empty() || !dtype.empty() || !mode.empty(); }
};
// Reads suite / dtype / mode out of one cell or phrase; a field stays empty when absent or ambiguous.
Combined parse_combined(std::string_view cell);

// dtype of a unit-test name from its suffix: test_foo_xpu_float64 -> float64; "" when none.
std::string dtype_from_test_name(std::string_view name);

// E2E statuses of the dynamo benchmark logs.
bool is_e2e_status(std::string_view token);
// An E2E status only a benchmark prints: fail_accuracy, fail_to_run, eager_two_runs_differ, ...; not pass,
// pass_due_to_skip or timeout, which unit-test logs print too.
bool is_failing_e2e_status(std::string_view token);
bool is_eager_status(std::string_view status);  // eager path failed (eager_fail_to_run, eager_two_runs_differ, ...)

}  // namespace perftriage::analyzers::labeler
