#pragma once
// The checksums of what an h5feed file records beside its images: /labels, /classes, /sources,
// /skipped_sources and /skipped_reasons each carry attribute `xxh3_64`, the XXH3-64 of the
// dataset's values (docs/format.md, "Checksums"), so that a label or a source path changed
// after conversion is caught as a changed pixel is. The values' bytes: a label list as int64
// little-endian; a string list as each string's UTF-8 bytes followed by one zero byte. Files
// written before these attributes have none, and are read as before. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace h5feed::format {

uint64_t ValuesChecksum(std::span<const int64_t> values);
uint64_t ValuesChecksum(std::span<const std::string> values);

// Writes attribute xxh3_64 = `checksum` on dataset `name` of `location`. Throws Error(kIo)
// naming the dataset.
void WriteValuesChecksum(hid_t location, const char* name, uint64_t checksum);

// The checksum dataset `name` of `location` carries; nullopt when it carries none (or does not
// exist). Throws Error(kCorrupt) when the attribute is not one unsigned integer.
std::optional<uint64_t> StoredValuesChecksum(hid_t location, const char* name);

// What a mismatch of dataset `name` is called in an error or a verify problem: "/labels do not
// match their checksum (xxh3_64)".
std::string ValuesMismatchText(const char* name);

// "" when dataset `name` carries no checksum or `values`' matches it; else ValuesMismatchText.
std::string ValuesMismatch(hid_t location, const char* name, std::span<const int64_t> values);
std::string ValuesMismatch(hid_t location, const char* name, std::span<const std::string> values);

}  // namespace h5feed::format
