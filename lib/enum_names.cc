// The public ToString and Parse functions of the options' enums (h5feed/file_locking.h,
// loader_options.h, output_options.h) over their tables (enum_names.h), and the tables' shared
// matching and refusal.

#include "enum_names.h"

#include "make_error.h"

#include <algorithm>

namespace h5feed {
namespace enum_names {

namespace {

// ASCII only: the words are, and the locale must not change what a word means.
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool EqualIgnoringCase(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return Lower(x) == Lower(y); });
}

void Reject(std::string_view what, std::string_view text, const std::string& words) {
  throw MakeError(ErrorCode::kInvalidArgument, "{} \"{}\" is not one of: {}", what, text, words);
}

}  // namespace enum_names

std::string_view ToString(FileLocking locking) noexcept { return NameOf(locking); }
FileLocking ParseFileLocking(std::string_view text) { return ParseName<FileLocking>(text); }

std::string_view ToString(EvictionPolicy policy) noexcept { return NameOf(policy); }
EvictionPolicy ParseEvictionPolicy(std::string_view text) {
  return ParseName<EvictionPolicy>(text);
}

std::string_view ToString(ElementType type) noexcept { return NameOf(type); }
ElementType ParseElementType(std::string_view text) { return ParseName<ElementType>(text); }

std::string_view ToString(Layout layout) noexcept { return NameOf(layout); }
Layout ParseLayout(std::string_view text) { return ParseName<Layout>(text); }

std::string_view ToString(StoredLayout layout) noexcept { return NameOf(layout); }

}  // namespace h5feed
