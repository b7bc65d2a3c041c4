// ValuesChecksum, WriteValuesChecksum, StoredValuesChecksum, ValuesMismatchText and
// ValuesMismatch (values_checksum.h).

#include "format/values_checksum.h"

#include <bit>
#include <charconv>
#include <vector>

#include "codec/checksum.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/handle.h"
#include "make_error.h"

namespace h5feed::format {
namespace {

static_assert(std::endian::native == std::endian::little,
              "label checksums hash int64 little-endian: byte-swap on a big-endian machine");

template <typename Values>
std::string Mismatch(hid_t location, const char* name, const Values& values) {
  const std::optional<uint64_t> stored = StoredValuesChecksum(location, name);
  if (!stored || *stored == ValuesChecksum(values)) return {};
  return ValuesMismatchText(name);
}

}  // namespace

uint64_t ValuesChecksum(std::span<const int64_t> values) {
  return codec::ChunkChecksum(
      std::span(reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()));
}

uint64_t ValuesChecksum(std::span<const std::string> values) {
  std::vector<uint8_t> bytes;
  for (const std::string& value : values) {
    bytes.insert(bytes.end(), value.begin(), value.end());
    bytes.push_back(0);
  }
  return codec::ChunkChecksum(bytes);
}

void WriteValuesChecksum(hid_t location, const char* name, uint64_t checksum) {
  const hdf5::Dataset dataset = hdf5::TryOpenDataset(location, name);
  if (!dataset) {
    throw MakeError(ErrorCode::kIo, "opening /{} to write its checksum failed", name);
  }
  hdf5::WriteAttribute(dataset.get(), schema::kAttrValuesChecksum, checksum);
}

std::optional<uint64_t> StoredValuesChecksum(hid_t location, const char* name) {
  const hdf5::Dataset dataset = hdf5::TryOpenDataset(location, name);
  if (!dataset || !hdf5::HasAttribute(dataset.get(), schema::kAttrValuesChecksum)) {
    return std::nullopt;
  }
  const std::string text = hdf5::ReadAttributeText(dataset.get(), schema::kAttrValuesChecksum);
  uint64_t checksum = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), checksum);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw MakeError(ErrorCode::kCorrupt, "attribute {} of /{} is \"{}\", not a checksum",
                    schema::kAttrValuesChecksum, name, text);
  }
  return checksum;
}

std::string ValuesMismatchText(const char* name) {
  return fmt::format("/{} do not match their checksum ({})", name, schema::kAttrValuesChecksum);
}

std::string ValuesMismatch(hid_t location, const char* name, std::span<const int64_t> values) {
  return Mismatch(location, name, values);
}

std::string ValuesMismatch(hid_t location, const char* name, std::span<const std::string> values) {
  return Mismatch(location, name, values);
}

}  // namespace h5feed::format
