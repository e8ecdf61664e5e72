// Streaming cascade (streaming_cascade.hpp).
#include "streaming_cascade.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "../errors.hpp"
#include "normal_stream.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr unsigned kMaxHorizon = 62;
constexpr const char* kMagic = "cascade_stream/1";

std::string hex(double x) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%a", x);
  return buffer;
}

[[noreturn]] void malformed(const std::string& why) {
  throw InvalidData("malformed streaming cascade state", why + ".",
                    "Pass the state exactly as the previous refresh stored it.");
}

double parse_double(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x)) malformed("\"" + text + "\" is not a finite number");
  return x;
}

std::uint64_t parse_u64(const std::string& text) {
  char* end = nullptr;
  const unsigned long long x = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-') malformed("\"" + text + "\" is not a count");
  return x;
}

// f(u) of the node [start, start + 2^h) for the range [lo, hi) (see
// cascade_covariance.hpp), adding each partial split's term.
double range_weight(unsigned h, std::uint64_t start, std::uint64_t lo, std::uint64_t hi, double tau2, double& var) {
  const std::uint64_t end = start + (std::uint64_t(1) << h);
  if (end <= lo || start >= hi) return 0;
  if (lo <= start && end <= hi) return 1;
  const std::uint64_t mid = start + (std::uint64_t(1) << (h - 1));
  const double f0 = range_weight(h - 1, start, lo, hi, tau2, var), f1 = range_weight(h - 1, mid, lo, hi, tau2, var);
  var += tau2 * (f0 - f1) * (f0 - f1) / 2;  // tau^2 (f0^2 + f1^2 - (f0 + f1)^2 / 2)
  return (f0 + f1) / 2;
}

}  // namespace

StreamingCascade::StreamingCascade(double variance, unsigned horizon) : variance_(variance), horizon_(horizon) {
  if (!std::isfinite(variance) || variance <= 0) throw InvalidArgument("streaming variance must be finite and positive");
  if (horizon > kMaxHorizon) throw InvalidArgument("streaming horizon must be at most 62");
}

std::vector<double> StreamingCascade::append(std::uint64_t count, RandomSource& rng, const Interrupts& interrupts) {
  const std::uint64_t capacity = std::uint64_t(1) << horizon_;
  if (count > capacity - n_) {
    throw TooLarge("the streaming hierarchy has reached its horizon",
                   std::to_string(n_) + " leaves are released, " + std::to_string(count) + " more were asked for, "
                       "and the privacy budget covers " + std::to_string(capacity) + ".",
                   "Start a new stream with a new budget (and a larger horizon).");
  }
  NormalStream normals(rng);
  const double sd = std::sqrt(variance_), half_sqrt3 = std::sqrt(3.0) / 2;
  std::vector<double> out;
  out.reserve(count);
  for (std::uint64_t k = 0; k < count; ++k) {
    interrupts.poll_every(k);
    if (n_ == 0) {
      root_ = sd * normals.next();
      height_ = 0;
      out.push_back(root_);
      n_ = 1;
      continue;
    }
    if (pending_.empty()) {  // the tree is full: grow a root above it
      const double s = -root_ / 2 + half_sqrt3 * sd * normals.next();
      root_ += s;
      pending_.emplace_back(height_, s);
      ++height_;
    }
    auto [h, x] = pending_.back();
    pending_.pop_back();
    for (; h > 0; --h) {  // split down the left edge to the new leaf
      const double y = half_sqrt3 * sd * normals.next();
      pending_.emplace_back(h - 1, x / 2 - y);
      x = x / 2 + y;
    }
    out.push_back(x);
    ++n_;
  }
  return out;
}

std::string StreamingCascade::serialize() const {
  std::string out = std::string(kMagic) + " variance=" + hex(variance_) + " horizon=" + std::to_string(horizon_) +
                    " n=" + std::to_string(n_) + " height=" + std::to_string(height_) + " root=" + hex(root_) +
                    " pending=";
  for (std::size_t k = 0; k < pending_.size(); ++k)
    out += (k ? "," : "") + std::to_string(pending_[k].first) + ":" + hex(pending_[k].second);
  return out;
}

StreamingCascade StreamingCascade::deserialize(const std::string& state) {
  std::istringstream in(state);
  std::string magic, field;
  in >> magic;
  if (magic != kMagic) malformed("it does not start with " + std::string(kMagic));
  auto value = [&](const char* name) {
    if (!(in >> field) || field.rfind(std::string(name) + "=", 0) != 0) malformed(std::string("field ") + name + " is missing");
    return field.substr(std::string(name).size() + 1);
  };
  const double variance = parse_double(value("variance"));
  const std::uint64_t horizon = parse_u64(value("horizon"));
  if (horizon > kMaxHorizon || !(variance > 0)) malformed("variance or horizon out of range");
  StreamingCascade s(variance, static_cast<unsigned>(horizon));
  s.n_ = parse_u64(value("n"));
  const std::uint64_t height = parse_u64(value("height"));
  s.root_ = parse_double(value("root"));
  const std::string pending = value("pending");
  if (in >> field) malformed("it has trailing text");
  if (height > horizon || s.n_ > (std::uint64_t(1) << horizon)) malformed("it is past its horizon");
  s.height_ = static_cast<unsigned>(height);
  std::istringstream items(pending);
  std::string item;
  // Ends: one pass per item of the stored text.
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) malformed("a pending node lacks its height");
    s.pending_.emplace_back(static_cast<unsigned>(parse_u64(item.substr(0, colon))), parse_double(item.substr(colon + 1)));
  }
  // The pending heights are the set bits of 2^height - n (lowest on top), and
  // height is the least with n <= 2^height.
  const std::uint64_t capacity = std::uint64_t(1) << s.height_;
  bool consistent = s.n_ <= capacity && (s.n_ == 0 ? s.height_ == 0 : (s.height_ == 0 || s.n_ > capacity / 2));
  std::uint64_t missing = s.n_ != 0 && s.n_ <= capacity ? capacity - s.n_ : 0;
  for (std::size_t k = s.pending_.size(); consistent && k-- > 0;) {
    const unsigned h = s.pending_[k].first;
    consistent = h < 64 && (missing & (std::uint64_t(1) << h)) != 0 &&
                 (k + 1 == s.pending_.size() || h > s.pending_[k + 1].first);
    if (consistent) missing &= ~(std::uint64_t(1) << h);
  }
  if (!consistent || missing != 0) malformed("its pending nodes do not match its number of leaves");
  return s;
}

double StreamingCascade::range_variance(std::uint64_t lo, std::uint64_t hi) const {
  if (lo > hi || hi >= n_) throw InvalidArgument("range of released leaves out of bounds");
  double var = 0;
  const double f = range_weight(height_, 0, lo, hi + 1, 1.5 * variance_, var);  // tau^2 = 3v/2 for m = 2
  return var + f * f * variance_;
}

double StreamingCascade::prefix_range_variance(double variance, std::uint64_t lo, std::uint64_t hi) {
  if (!std::isfinite(variance) || variance <= 0) throw InvalidArgument("streaming variance must be finite and positive");
  if (lo > hi || hi >= (std::uint64_t(1) << kMaxHorizon)) throw InvalidArgument("range of leaves out of bounds");
  unsigned height = 0;
  // Ends: hi < 2^kMaxHorizon (checked above).
  while ((std::uint64_t(1) << height) <= hi) ++height;  // the least tree holding leaf hi
  double var = 0;
  const double f = range_weight(height, 0, lo, hi + 1, 1.5 * variance, var);
  return var + f * f * variance;
}

double StreamingCascade::unit_sensitivity_squared(unsigned horizon, Neighbours neighbours) {
  if (neighbours == Neighbours::AddRemove) return 1 + horizon / 3.0;
  return horizon == 0 ? 0 : (2.0 * horizon + 2) / 3;  // a pair across the root
}

}  // namespace invariant_dp::hierarchy
