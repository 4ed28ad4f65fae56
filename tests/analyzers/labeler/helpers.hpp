#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/labeler/labeler.hpp"
#include "tests/support/files.hpp"

namespace perftriage::analyzers::labeler::testing {

using perftriage::testing::read_fixture;

inline const Taxonomy& xpu_taxonomy() {
  static const Taxonomy t = [] {
    auto r = load_taxonomy("torch-xpu-ops");
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value() : Taxonomy{};
  }();
  return t;
}

inline LabelResult label(const std::string& title, const std::string& body, std::vector<std::string> labels = {}) {
  IssueInput in;
  in.title = title;
  in.body = body;
  in.labels = std::move(labels);
  in.repo = "intel/torch-xpu-ops";
  in.number = 1;
  // The rules alone: the written issues test the rules. The rules with the learned layer are scored on real issues
  // (CTest label_eval) and tested in model_test.cpp and seed_test.cpp.
  return label_issue(in, xpu_taxonomy(), {}, Layers::rules);
}

inline std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The row of one axis; nullptr when the labeler gave none.
inline const AxisRow* row(const LabelResult& r, const std::string& axis) {
  auto it = std::find_if(r.axes.begin(), r.axes.end(), [&](const AxisRow& a) { return a.axis == axis; });
  return it == r.axes.end() ? nullptr : &*it;
}

inline std::string value_of(const LabelResult& r, const std::string& axis) {
  const auto* a = row(r, axis);
  return a ? a->value : "";
}

inline bool has_label(const LabelResult& r, const std::string& label) {
  return std::find(r.labels.begin(), r.labels.end(), label) != r.labels.end();
}

}  // namespace perftriage::analyzers::labeler::testing
