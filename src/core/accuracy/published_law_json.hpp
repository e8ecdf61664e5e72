// The published law written as the release metadata's fields, once
// (published_law.hpp): every writer of a release's metadata (flat releases:
// mechanisms/release_metadata.cpp; hierarchies: rollups/) adds these fields
// from the typed law it filled, and read_published_law reads them back.
// A metadata object is built field by field and closed once, so that a
// field added later (a rolled-up hierarchy, per-cell intervals) goes in as
// a field, not into the text.
#pragma once

#include <string>
#include <string_view>

#include "published_law.hpp"

namespace invariant_dp::accuracy {

class MetadataObject {
 public:
  // Appends "name": value, value being JSON text.
  void add(std::string_view name, const std::string& json_value);
  bool empty() const { return fields_.empty(); }
  std::string text() const { return "{" + fields_ + "}"; }

 private:
  std::string fields_;
};

// The value of "error_law": the family's name, quoted.
std::string error_law_json(const PublishedLaw& law);
// "noise": a flat law's scale, exact parameter, unit variance, calibration
// and covariance scales; a cascade's level variances, their bounds and
// calibration.
std::string noise_json(const PublishedLaw& law);
// "invariants": a flat law's margins, structure, rank and null dimension;
// a cascade's margins and fixed nodes.
std::string invariants_json(const PublishedLaw& law);
// "sampler" (law.sampler.present).
std::string sampler_json(const PublishedLaw& law);
// "hierarchy": one tree, or the two trees of a crossed release.
std::string hierarchy_json(const PublishedLaw& law);

}  // namespace invariant_dp::accuracy
