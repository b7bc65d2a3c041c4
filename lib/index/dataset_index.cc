// OpenDatasetIndex (dataset_index.h): opens the file, tells an h5feed file from a foreign one
// (and from an interrupted conversion), and hands over to h5feed_index.cc or foreign_index.cc.

#include "index/dataset_index.h"

#include <filesystem>
#include <string>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/zstd_filter.h"
#include "index/foreign_index.h"
#include "index/h5feed_index.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

namespace fs = std::filesystem;

// The writer's temporary name is ".NAME.partial-PID" (docs/format.md, "Writing protocol").
bool NamedLikePartial(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return (!name.empty() && name.front() == '.') || name.find(".partial") != std::string::npos;
}

// A file with /images and no h5feed_format attribute that h5feed started to write: the
// writer sets that attribute last of all, so it is missing exactly when conversion stopped.
bool LooksInterrupted(hid_t file, const std::string& path) {
  if (!hdf5::LinkExists(file, format::schema::kImages)) return false;
  return NamedLikePartial(path) || hdf5::LinkExists(file, format::schema::kChunkIndex) ||
         hdf5::HasAttribute(file, format::schema::kAttrFormatVersion) ||
         hdf5::HasAttribute(file, format::schema::kAttrChunkImages);
}

bool NamesDefaultImages(const std::string& images) {
  return images.empty() || images == format::schema::kImages ||
         images == std::string("/") + format::schema::kImages;
}

hdf5::ReadOnlyFile OpenReadOnly(const Location& location, FileLocking locking) {
  try {
    return hdf5::OpenHdf5File(location, locking);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt || !NamedLikePartial(location.text())) throw;
    throw MakeError(e.code(), "{}; its name says it is an interrupted conversion", e.what());
  }
}

}  // namespace

uint64_t DatasetIndex::pixel_bytes() const {
  if (rows.uniform()) return static_cast<uint64_t>(samples) * static_cast<uint64_t>(sample_bytes());
  uint64_t bytes = 0;
  for (int64_t row = 0; row < samples; ++row) {
    bytes += static_cast<uint64_t>(rows.at(row).shape.bytes());
  }
  return bytes;
}

bool DatasetIndex::holds_one_size() const {
  if (rows.uniform()) return true;
  for (int64_t row = 0; row < samples; ++row) {
    if (!(rows.at(row).shape == shape)) return false;
  }
  return true;
}

const char* ToString(ReadPath path) {
  switch (path) {
    case ReadPath::kStoredTable: return "stored chunk table (pread)";
    case ReadPath::kHdf5Chunk: return "HDF5 raw chunks (H5Dread_chunk)";
    case ReadPath::kContiguous: return "contiguous (pread)";
    case ReadPath::kHdf5Hyperslab: return "HDF5 hyperslabs (H5Dread)";
  }
  return "unknown";
}

bool ReadsByAddress(ReadPath path) {
  return path == ReadPath::kStoredTable || path == ReadPath::kContiguous;
}

DatasetIndex OpenDatasetIndex(const std::string& path, const IndexOptions& options) {
  // Before the file is opened: HDF5 looks filters up when a dataset is opened.
  hdf5::RegisterZstdFilter();

  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  // Declared after the lock: closed while it is held.
  const Location location(path, options.remote);
  hdf5::ReadOnlyFile opened = OpenReadOnly(location, options.file_locking);
  const hdf5::File& file = opened.file;
  DatasetIndex index;
  index.path = location.display();
  index.location = location.AtVersion(opened.version);
  index.file_bytes = opened.bytes;
  index.file_locking = opened.locked ? FileLocking::kOn : FileLocking::kOff;
  if (!opened.note.empty()) index.warnings.push_back(opened.note);
  if (hdf5::HasAttribute(file.get(), format::schema::kAttrFormat)) {
    const std::string format = hdf5::ReadStringAttribute(file.get(), format::schema::kAttrFormat);
    if (format != format::schema::kFormatName) {
      throw MakeError(ErrorCode::kUnsupported,
                      "{} says it is in format \"{}\", not \"{}\"; this h5feed cannot read it",
                      index.path, format, format::schema::kFormatName);
    }
    if (NamesDefaultImages(options.images)) {
      ReadH5feedIndex(file.get(), options, index);
      return index;
    }
  } else if (LooksInterrupted(file.get(), path)) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} has /images but no {} attribute: it is an interrupted conversion (h5feed writes that "
        "attribute last). Convert the source again",
        index.path, format::schema::kAttrFormat);
  }
  ReadForeignIndex(file.get(), options, index);
  return index;
}

}  // namespace h5feed::index
