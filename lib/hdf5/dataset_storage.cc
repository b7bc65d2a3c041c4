// ReadDatasetStorage (dataset_storage.h): the one walk of a dataset's filter pipeline.

#include "hdf5/dataset_storage.h"

#include <algorithm>
#include <utility>

#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/type_names.h"
#include "hdf5/zstd_filter.h"

namespace h5feed::hdf5 {
namespace {

static_assert(kDeflateFilterId == H5Z_FILTER_DEFLATE && kShuffleFilterId == H5Z_FILTER_SHUFFLE &&
              kFletcher32FilterId == H5Z_FILTER_FLETCHER32);

constexpr size_t kMaxClientValues = 16;
// Room for the name a file gives a filter; H5Pget_filter2 truncates a longer one.
constexpr size_t kMaxNameBytes = 64;

StorageKind KindOf(H5D_layout_t layout) {
  switch (layout) {
    case H5D_CONTIGUOUS: return StorageKind::kContiguous;
    case H5D_CHUNKED: return StorageKind::kChunked;
    case H5D_COMPACT: return StorageKind::kCompact;
    default: return StorageKind::kOther;
  }
}

// Keeps the first failure, built at once: the next HDF5 call clears the error stack.
void Note(DatasetStorage& storage, hid_t dataset, const std::string& what) {
  if (!storage.problem) storage.problem = StackError(ErrorCode::kCorrupt, what, dataset);
}

void ReadFilters(hid_t dcpl, hid_t dataset, const std::string& name, DatasetStorage& storage) {
  const int count = H5Pget_nfilters(dcpl);
  if (count < 0) Note(storage, dataset, "reading the filters of " + name);
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    unsigned values[kMaxClientValues] = {};
    size_t value_count = kMaxClientValues;
    char stored_name[kMaxNameBytes] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &value_count,
                                           values, sizeof(stored_name), stored_name, &config);
    Filter filter;
    if (id < 0) {
      Note(storage, dataset, "reading the filters of " + name);
      filter.name = "unreadable filter";
    } else {
      filter.id = static_cast<int>(id);
      filter.values.assign(values, values + std::min(value_count, kMaxClientValues));
      filter.name = FilterName(filter.id, filter.values, stored_name);
    }
    storage.filters.push_back(std::move(filter));
  }
}

}  // namespace

DatasetStorage ReadDatasetStorage(hid_t dataset, size_t rank, const std::string& name) {
  // The fill value of a dataset that holds no numbers (strings, compounds) fails to convert
  // to uint8, routinely: no printing.
  SilenceErrors silence;
  DatasetStorage storage;
  const PropertyList dcpl(H5Dget_create_plist(dataset));
  if (!dcpl) {
    Note(storage, dataset, "reading the storage of " + name);
    return storage;
  }
  storage.kind = KindOf(H5Pget_layout(dcpl.get()));
  if (storage.kind == StorageKind::kChunked) {
    hsize_t chunk[H5S_MAX_RANK] = {};
    const int chunk_rank = H5Pget_chunk(dcpl.get(), H5S_MAX_RANK, chunk);
    if (rank > 0 && chunk_rank == static_cast<int>(rank)) {
      storage.chunk.assign(chunk, chunk + rank);
    } else {
      Note(storage, dataset, "reading the chunk shape of " + name);
    }
  }
  ReadFilters(dcpl.get(), dataset, name, storage);
  H5D_fill_value_t defined = H5D_FILL_VALUE_UNDEFINED;
  if (H5Pfill_value_defined(dcpl.get(), &defined) >= 0 && defined != H5D_FILL_VALUE_UNDEFINED) {
    uint8_t value = 0;
    if (H5Pget_fill_value(dcpl.get(), H5T_NATIVE_UINT8, &value) >= 0) storage.fill_value = value;
  }
  storage.external_files = std::max(0, H5Pget_external_count(dcpl.get()));
  if (storage.kind == StorageKind::kContiguous && storage.external_files == 0) {
    const haddr_t address = H5Dget_offset(dataset);
    if (address != HADDR_UNDEF) storage.address = address;
  }
  return storage;
}

bool FilterAvailable(int id) {
  if (id < 0) return false;
  RegisterZstdFilter();
  return H5Zfilter_avail(static_cast<H5Z_filter_t>(id)) > 0;
}

std::vector<std::string> FilterNames(const std::vector<Filter>& filters) {
  std::vector<std::string> names;
  for (const Filter& filter : filters) names.push_back(filter.name);
  return names;
}

}  // namespace h5feed::hdf5
