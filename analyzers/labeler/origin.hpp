#pragma once
// Which layer decided a label's value: the rules, the taxonomy's fallback value (no rule fired; "default" in JSON),
// the issue (set on it already) or the learned layer (model.hpp); gate on a value Layers::gated withheld, suggested on
// a suggestion. Carried as data on every row (AxisRow::layer) and on each calibration (rules or model), never found
// in a reason's text.
#include <optional>
#include <string_view>

namespace perftriage::analyzers::labeler {

enum class Origin { rules, fallback, issue, model, gate, suggested };

std::string_view to_string(Origin o);  // "rules", "default", "issue", "model", "gate", "suggested"
std::optional<Origin> origin_from_name(std::string_view name);

}  // namespace perftriage::analyzers::labeler
