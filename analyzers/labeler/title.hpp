#pragma once
// Title tags ([BMG], [ARC E2E], [Windows], `ARC: FP64: ...`) and hw / os aliases (B60 -> BMG; "Arc(TM)" is not ARC;
// device ids compare without leading zeros).
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/labeler/taxonomy.hpp"

namespace perftriage::analyzers::labeler {

struct TagHit {
  std::string axis, key, tag;  // tag: the title tag as written, for the reason
};

struct TitleInfo {
  std::vector<std::string> tags;  // as written, without brackets
  std::vector<TagHit> hits;       // taxonomy title_tags and hw aliases found in the tags
  std::string rest;               // the title without its tags
};

TitleInfo parse_title(std::string_view title, const Taxonomy& taxonomy);

// hw keys named in free text (aliases only; tag-only spellings such as "arc" do not count; device ids compared
// numerically). `text_lower` must be lower-case.
std::set<std::string> find_hw(std::string_view text_lower, const Taxonomy& taxonomy);
// hw keys named inside one title tag (tag-only spellings count).
std::set<std::string> find_hw_in_tag(std::string_view tag, const Taxonomy& taxonomy);
// os keys named in free text.
std::set<std::string> find_os(std::string_view text_lower, const Taxonomy& taxonomy);
// The alias that matched, for a reason ("b580"); empty when none.
std::string hw_evidence(std::string_view text_lower, const Taxonomy& taxonomy, const std::string& key);

}  // namespace perftriage::analyzers::labeler
