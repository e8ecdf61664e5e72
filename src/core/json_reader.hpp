// Reading JSON text back: the noise law a release published (json_text.hpp
// writes it) is read again to give its error bars, and the arrays and
// objects of a request's options are read through it (request/options.hpp,
// which words their refusals itself). A small DOM for objects,
// arrays, strings, numbers, booleans and null. Anyone may hand the extension
// a law (an analyst passes dp.last_release() or a stored one), so the reader
// trusts nothing: nesting is bounded, numbers must be finite, and every
// malformed text is InvalidArgument, never a crash.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace invariant_dp {

class JsonValue {
 public:
  enum class Type { null, boolean, number, string, array, object };

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::null; }
  bool is_number() const { return type_ == Type::number; }
  bool is_string() const { return type_ == Type::string; }
  bool is_array() const { return type_ == Type::array; }
  bool is_object() const { return type_ == Type::object; }

  // The member of an object, or nullptr when absent (or not an object).
  const JsonValue* find(std::string_view key) const;
  // Following a path of object keys; nullptr when any is absent.
  const JsonValue* find_path(std::initializer_list<std::string_view> keys) const;

  // Typed reads; InvalidArgument naming `what` when the value is of another type.
  double number(const char* what) const;
  bool boolean(const char* what) const;
  const std::string& string(const char* what) const;
  const std::vector<JsonValue>& array(const char* what) const;
  const std::vector<std::pair<std::string, JsonValue>>& members(const char* what) const;

  // Parses a whole text (one value, surrounding white space allowed).
  static JsonValue parse(std::string_view text);

 private:
  friend class JsonParser;
  Type type_ = Type::null;
  bool boolean_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;                           // array elements
  std::vector<std::pair<std::string, JsonValue>> members_;  // object members, in text order
};

// The deepest nesting parse() accepts (a published law nests four deep).
constexpr std::size_t kMaxJsonDepth = 32;

}  // namespace invariant_dp
