// FieldChunkIndex (field_chunk_index.h).

#include "index/field_chunk_index.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/schema.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/zstd_filter.h"
#include "index/field_specs.h"
#include "index/filter_pipeline.h"
#include "index/image_storage.h"
#include "index/stored_chunk_table.h"

namespace h5feed::index {

std::optional<DatasetIndex> FieldChunkIndex(const DatasetIndex& images, const FieldSpec& spec,
                                            int table_entries) {
  if (spec.kind != FieldKind::kArray || spec.shape.size() > 3) {  // ChunkReader: at most 4-D
    return std::nullopt;
  }
  const std::string& path = images.path;
  // Before the file is opened: HDF5 looks filters up when a dataset is opened.
  hdf5::RegisterZstdFilter();
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::File file = std::move(hdf5::OpenHdf5File(images.location, images.file_locking).file);
  const hdf5::FieldDatasetEntry entry =
      DescribeFieldAsOpened(file.get(), spec, images.samples, path);
  const hdf5::DatasetStorage& storage = entry.dataset.storage;
  if (storage.problem) throw *storage.problem;
  // Chunks of whole rows of the field.
  const std::vector<int64_t>& dims = entry.dataset.dims;
  bool whole_rows = storage.kind == hdf5::StorageKind::kChunked &&
                    storage.chunk.size() == dims.size() && !dims.empty() && storage.chunk[0] >= 1;
  for (size_t d = 1; whole_rows && d < dims.size(); ++d) whole_rows = storage.chunk[d] == dims[d];
  std::vector<FilterStep> filters = FilterSteps(storage);
  if (!whole_rows || !CanDecode(filters)) return std::nullopt;
  const int64_t chunk_rows = storage.chunk[0];

  DatasetIndex field;
  field.path = images.path;
  field.dataset = "/" + spec.name;
  field.samples = images.samples;
  field.shape = ImageShape{.height = 1, .width = spec.row_bytes(), .channels = 1};
  field.layout = Layout::kNHWC;
  field.rows = RowLocator(images.samples, chunk_rows, field.shape);
  field.chunk_samples = chunk_rows;
  field.chunk_extent = chunk_rows;
  field.is_h5feed = true;
  field.read_path = ReadPath::kHdf5Chunk;
  field.row_checksums = ReadFieldChecksums(file.get(), spec, images.samples, path);
  field.filters = std::move(filters);
  field.labelled = false;
  field.file_locking = images.file_locking;
  field.location = images.location;
  field.file_bytes = images.file_bytes;
  const StoredTable table{std::string(format::schema::kFieldChunkIndex) + "/" + spec.name,
                          field.dataset, field.chunk_count(), field.chunk_bytes(), chunk_rows};
  if (hdf5::LinkExists(file.get(), table.table)) {
    const hdf5::Dataset dataset = hdf5::OpenDataset(file.get(), field.dataset, path);
    field.chunks = ReadCheckedChunkTable(file.get(), dataset.get(), table, table_entries, field);
    field.read_path = ReadPath::kStoredTable;
    field.has_checksums = true;
  }
  return field;
}

}  // namespace h5feed::index
