#include "sources/npy_header.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <limits>
#include <string_view>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kPreambleV1 = 10;  // magic, 2 version bytes, 2-byte header length
constexpr size_t kPreambleV2 = 12;  // magic, 2 version bytes, 4-byte header length
// A version 2 header may announce up to 4 GiB; numpy.load refuses more than 10,000 bytes by
// default, so a longer one is damage, not a header to allocate memory for.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

// Reads the Python dict literal numpy writes with repr(): string keys; string, bool and
// tuple-of-int values. Anything else is reported, not guessed at.
class DictParser {
 public:
  DictParser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader Parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    Expect('{');
    while (!Consume('}')) {
      std::string key = ParseString();
      Expect(':');
      if (key == "descr") {
        SkipSpace();
        if (Peek() == '[') {
          throw MakeError(
              ErrorCode::kUnsupported,
              "{} holds a structured array (dtype {}); a plain uint8 or integer array is needed",
              path_, Rest());
        }
        header.dtype = ParseDtype(ParseString());
        seen_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = ParseBool();
        seen_order = true;
      } else if (key == "shape") {
        header.shape = ParseShape();
        seen_shape = true;
      } else {
        Fail("unknown key '{}'", key);
      }
      if (!Consume(',')) {
        Expect('}');
        break;
      }
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      Fail("the header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return header;
  }

 private:
  template <typename... Args>
  [[noreturn]] void Fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} has a malformed .npy header ({}, at character {} of '{}')", path_,
                    fmt::format(format, std::forward<Args>(args)...), pos_, text_);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  std::string Rest() const { return std::string(text_.substr(pos_, text_.find('}', pos_) - pos_)); }

  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Expect(char c) {
    if (!Consume(c)) Fail("expected '{}'", c);
  }

  std::string ParseString() {
    SkipSpace();
    char quote = Peek();
    if (quote != '\'' && quote != '"') Fail("expected a quoted string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) Fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  bool ParseBool() {
    SkipSpace();
    for (std::string_view word : {"True", "False"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return word == "True";
      }
    }
    Fail("expected True or False");
  }

  std::vector<int64_t> ParseShape() {
    std::vector<int64_t> shape;
    Expect('(');
    while (!Consume(')')) {
      SkipSpace();
      size_t start = pos_;
      int64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        int digit = text_[pos_++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          Fail("dimension too large");
        }
        value = value * 10 + digit;
      }
      if (pos_ == start) Fail("expected a dimension");
      if (Peek() == 'L') ++pos_;  // Python 2 longs, in files written by old NumPy
      shape.push_back(value);
      if (!Consume(',')) {
        Expect(')');
        break;
      }
    }
    return shape;
  }

  NpyDtype ParseDtype(const std::string& descr) {
    NpyDtype dtype;
    dtype.descr = descr;
    std::string_view rest = descr;
    if (!rest.empty() && std::strchr("<>|=", rest.front()) != nullptr) {
      // '=' is the writer's native order; NumPy writes an explicit '<' or '>' instead, and
      // h5feed runs on little-endian machines only.
      dtype.big_endian =
          rest.front() == '>' || (rest.front() == '=' && std::endian::native == std::endian::big);
      rest.remove_prefix(1);
    }
    if (rest.empty() || !std::isalpha(static_cast<unsigned char>(rest.front()))) {
      Fail("unreadable dtype '{}'", descr);
    }
    dtype.kind = rest.front();
    rest.remove_prefix(1);
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c))) break;  // "M8[ns]": units follow
      dtype.item_bytes = dtype.item_bytes * 10 + (c - '0');
      if (dtype.item_bytes > (1 << 20)) Fail("unreadable dtype '{}'", descr);
    }
    return dtype;
  }

  std::string_view text_;
  const std::string& path_;
  size_t pos_ = 0;
};

uint32_t LittleEndian(const uint8_t* p, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint32_t>(p[i]) << (8 * i);
  return value;
}

// Where the header's text starts, and its length.
struct Preamble {
  size_t bytes = 0;
  size_t header_bytes = 0;
};

// The preamble at the start of `file` (its first kPreambleV2 bytes suffice).
Preamble ParsePreamble(std::span<const uint8_t> file, const std::string& path) {
  if (file.size() < kPreambleV1 || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} is not a .npy file (no \\x93NUMPY magic); save the array with numpy.save (a .npz "
        "archive must be unpacked first)",
        path);
  }
  int major = file[6];
  size_t preamble = 0;
  size_t header_bytes = 0;
  if (major == 1) {
    preamble = kPreambleV1;
    header_bytes = LittleEndian(&file[8], 2);
  } else if (major == 2 || major == 3) {  // 3.0 only allows UTF-8 in the header
    if (file.size() < kPreambleV2) {
      throw MakeError(ErrorCode::kCorrupt, "{} is truncated inside its .npy header", path);
    }
    preamble = kPreambleV2;
    header_bytes = LittleEndian(&file[8], 4);
  } else {
    throw MakeError(ErrorCode::kUnsupported,
                    "{} is .npy format version {}.{}; versions 1.0 to 3.0 are supported", path,
                    major, file[7]);
  }
  return {preamble, header_bytes};
}

}  // namespace

int64_t NpyHeader::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t NpyHeader::data_bytes() const { return elements() * dtype.item_bytes; }

std::string NpyHeader::ShapeText() const {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

NpyHeader ParseNpyHeader(std::span<const uint8_t> file, const std::string& path) {
  const auto [preamble, header_bytes] = ParsePreamble(file, path);
  if (file.size() < preamble + header_bytes) {
    throw MakeError(ErrorCode::kCorrupt, "{} is truncated inside its .npy header", path);
  }
  std::string_view text(reinterpret_cast<const char*>(file.data() + preamble), header_bytes);
  NpyHeader header = DictParser(text, path).Parse();
  int64_t bytes = std::max<int64_t>(header.dtype.item_bytes, 1);
  for (int64_t d : header.shape) {
    if (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d) {
      throw MakeError(ErrorCode::kCorrupt, "{} has an impossible shape {}", path,
                      header.ShapeText());
    }
    bytes *= d;
  }
  header.data_offset = static_cast<int64_t>(preamble + header_bytes);
  return header;
}

NpyHeader ReadNpyHeader(const InputFile& file) {
  const Preamble preamble = ParsePreamble(file.ReadStart(kPreambleV2), file.path());
  if (preamble.header_bytes > kMaxHeaderBytes) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} announces a .npy header of {} bytes, which numpy.save does not write "
                    "(numpy.load refuses headers over 10,000 bytes); save the array again",
                    file.path(), preamble.header_bytes);
  }
  return ParseNpyHeader(file.ReadStart(preamble.bytes + preamble.header_bytes), file.path());
}

int64_t ReadNpyInteger(const uint8_t* p, const NpyDtype& dtype) {
  const int64_t n = dtype.item_bytes;
  // NumPy's integers are 1, 2, 4 or 8 bytes; a header may still say '<i16' (found by fuzzing:
  // the shifts below are undefined past 8 bytes).
  if (!dtype.is_integer() || (n != 1 && n != 2 && n != 4 && n != 8)) {
    throw MakeError(ErrorCode::kUnsupported, "dtype '{}' is not an integer of 1, 2, 4 or 8 bytes",
                    dtype.descr);
  }
  uint64_t bits = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t shift = dtype.big_endian ? 8 * (n - 1 - i) : 8 * i;
    bits |= static_cast<uint64_t>(p[i]) << shift;
  }
  if (dtype.kind == 'i' && n < 8 && (bits >> (8 * n - 1)) != 0) {
    bits |= ~uint64_t{0} << (8 * n);  // sign-extend
  }
  if (dtype.kind == 'u' && n == 8 && bits > static_cast<uint64_t>(INT64_MAX)) {
    throw MakeError(ErrorCode::kUnsupported, "uint64 value {} does not fit a label (int64)", bits);
  }
  return static_cast<int64_t>(bits);
}

}  // namespace h5feed::converters
