// A recursive-descent reader for RFC 8259 JSON (json_reader.hpp).
#include "json_reader.hpp"

#include <charconv>
#include <cmath>

#include "errors.hpp"

namespace invariant_dp {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  JsonValue document() {
    JsonValue out = value(0);
    skip_space();
    if (at_ < text_.size()) fail("text after the end of the value");
    return out;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument("the noise law is not valid JSON", what + " at character " + std::to_string(at_) + ".");
  }
  void skip_space() {
    // Ends: each pass consumes a character of the text.
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  JsonValue value(std::size_t depth) {
    if (depth >= kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth));
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    JsonValue out;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      out.type_ = JsonValue::Type::object;
      if (take('}')) return out;
      // Ends: each member consumes characters of the text (a key, a colon and a value at least).
      do {
        skip_space();
        std::string key = string();
        expect(':');
        out.members_.emplace_back(std::move(key), value(depth + 1));
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++at_;
      out.type_ = JsonValue::Type::array;
      if (take(']')) return out;
      // Ends: each item consumes characters of the text.
      do out.items_.push_back(value(depth + 1));
      while (take(','));
      expect(']');
    } else if (c == '"') {
      out.type_ = JsonValue::Type::string;
      out.string_ = string();
    } else if (literal("true") || literal("false")) {
      out.type_ = JsonValue::Type::boolean;
      out.boolean_ = c == 't';
    } else if (literal("null")) {
      out.type_ = JsonValue::Type::null;
    } else {
      out.type_ = JsonValue::Type::number;
      out.number_ = number();
    }
    return out;
  }

  double number() {
    const char* begin = text_.data() + at_;
    const char* end = text_.data() + text_.size();
    double x = 0;
    // from_chars is locale-independent, as JSON numbers are.
    const auto [stop, status] = std::from_chars(begin, end, x);
    if (stop == begin || status != std::errc()) fail("expected a value");
    if (!std::isfinite(x)) fail("a number out of range");
    at_ += static_cast<std::size_t>(stop - begin);
    return x;
  }

  unsigned hex4() {
    if (at_ + 4 > text_.size()) fail("a truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      code = code * 16 + (h >= '0' && h <= '9'   ? unsigned(h - '0')
                          : h >= 'a' && h <= 'f' ? unsigned(h - 'a' + 10)
                          : h >= 'A' && h <= 'F' ? unsigned(h - 'A' + 10)
                                                 : (fail("a bad \\u escape"), 0u));
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xc0 | (code >> 6));
      out += char(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += char(0xe0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3f));
      out += char(0x80 | (code & 0x3f));
    } else {
      out += char(0xf0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3f));
      out += char(0x80 | ((code >> 6) & 0x3f));
      out += char(0x80 | (code & 0x3f));
    }
  }

  std::string string() {
    if (at_ >= text_.size() || text_[at_] != '"') fail("expected a string");
    ++at_;
    std::string out;
    // Ends: each pass consumes a character of the text, and its end fails.
    while (true) {
      if (at_ >= text_.size()) fail("an unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) fail("an unterminated escape");
      const char e = text_[at_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xd800 && code < 0xdc00 && literal("\\u")) {
            const unsigned low = hex4();
            if (low < 0xdc00 || low >= 0xe000) fail("an unpaired surrogate");
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          }
          append_utf8(out, code);
          break;
        }
        default: fail("a bad escape");
      }
    }
  }
};

JsonValue JsonValue::parse(std::string_view text) { return JsonParser(text).document(); }

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != Type::object) return nullptr;
  for (const auto& [name, value] : members_)
    if (name == key) return &value;
  return nullptr;
}

const JsonValue* JsonValue::find_path(std::initializer_list<std::string_view> keys) const {
  const JsonValue* at = this;
  for (const std::string_view key : keys) {
    at = at->find(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

namespace {
[[noreturn]] void wrong_type(const char* what, const char* expected) {
  throw InvalidArgument(std::string("the noise law's ") + what + " is not " + expected,
                        "Pass the law a release published: dp.last_release() after it, or its stored noise_law.");
}
}  // namespace

double JsonValue::number(const char* what) const {
  if (type_ != Type::number) wrong_type(what, "a number");
  return number_;
}

bool JsonValue::boolean(const char* what) const {
  if (type_ != Type::boolean) wrong_type(what, "true or false");
  return boolean_;
}

const std::string& JsonValue::string(const char* what) const {
  if (type_ != Type::string) wrong_type(what, "a string");
  return string_;
}

const std::vector<JsonValue>& JsonValue::array(const char* what) const {
  if (type_ != Type::array) wrong_type(what, "an array");
  return items_;
}

const std::vector<std::pair<std::string, JsonValue>>& JsonValue::members(const char* what) const {
  if (type_ != Type::object) wrong_type(what, "an object");
  return members_;
}

}  // namespace invariant_dp
