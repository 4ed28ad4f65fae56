#pragma once
// Axes from an artifact path: the three naming patterns of benchmark-csv.md, plus reference-file names.
#include <string>
#include <string_view>

#include "ingest/records.hpp"

namespace perftriage::ingest {

// Normalisers: return the canonical spelling, or the input lower-cased when unknown; "" for "".
std::string normalize_suite(std::string_view s);  // timm -> timm_models
std::string normalize_dtype(std::string_view s);  // amp-bf16 / amp_bfloat16 -> amp_bf16, fp32 -> float32, ...
std::string normalize_mode(std::string_view s);
std::string normalize_kind(std::string_view s);  // scenario: performance | accuracy

// Whatever the path states; fields it does not state stay empty.
Axes axes_from_path(std::string_view path);

}  // namespace perftriage::ingest
