#pragma once
// UTF-8, as h5feed's string datasets and text fields hold it (docs/format.md): what a valid
// sequence is, and a name that is not valid UTF-8 made into one that is.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace h5feed {

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not a valid one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t Utf8SequenceLength(std::span<const uint8_t> text, size_t i);

// `text` with every byte that is not part of a valid UTF-8 sequence written as "\xNN" (two
// lowercase hex digits, as Python's backslashreplace writes it): file and folder names are
// bytes on Linux, and a folder of Latin-1 or CP437 names (an old archive unpacked) would
// otherwise be stored in datasets that declare UTF-8, which h5py's asstr() then fails to read.
// Valid text is returned unchanged.
std::string EscapeInvalidUtf8(std::string_view text);

}  // namespace h5feed
