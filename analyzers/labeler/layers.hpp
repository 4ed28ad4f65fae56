#pragma once
// Which of the labeler's layers label (analyzers/labeler/labeler.hpp): a value the settings hold as it is, named in
// the configuration, the API and the CLI by layers_name.
#include <optional>
#include <string>
#include <string_view>

namespace perftriage::analyzers::labeler {

// The layers that label: the rules, the taxonomy's learned model (Taxonomy::model), or both. With both the rules
// decide first and the model fills only what they left: a single-valued axis with no value (or only the default),
// a value of a multi-valued axis the rules did not give, each at or above the model's threshold. Gated is both, and
// then a value the rules gave is withheld where the model's gate says the tracker would leave it off
// (LabelWeights::gate): labels as the tracker habitually sets them rather than everything the issue states. Opt-in:
// the seed's own triage names dtype and mode, which intel/torch-xpu-ops' history rarely carries. Tiered is both, with
// the model proposing down to its suggest_from, and then every value applied only when its calibrated probability
// (LabelModel::calibration) reaches the model's apply_at; the rest become suggestions with that probability.
enum class Layers { rules, model, both, gated, tiered };
inline constexpr Layers kAllLayers[] = {Layers::rules, Layers::model, Layers::both, Layers::gated, Layers::tiered};
std::string_view layers_name(Layers l);
std::optional<Layers> layers_from_name(std::string_view name);  // "rules", "model", "both", "gated", "tiered"
// The names for a message that says what is accepted: "rules, model, both, gated or tiered" (`also` joins last).
std::string layers_names_text(std::string_view also = {});

}  // namespace perftriage::analyzers::labeler
