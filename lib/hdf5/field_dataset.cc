// CreateFieldDataset and WriteFieldRows (field_dataset.h).

#include "hdf5/field_dataset.h"

#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/extendible_dataset.h"
#include "hdf5/field_types.h"
#include "hdf5/untimed_creation.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

Datatype StoredType(const FieldSpec& spec) {
  switch (StoredKind(spec)) {
    case FieldKind::kArray: return FieldElementType(spec.type);
    case FieldKind::kText: break;
    default: return ByteSequenceType();
  }
  Datatype text(H5Tcopy(H5T_C_S1));
  if (!text || H5Tset_size(text.get(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(text.get(), H5T_CSET_UTF8) < 0) {
    throw MakeError(ErrorCode::kInternal, "HDF5 failed making a text type: {}", ErrorStackText());
  }
  return text;
}

}  // namespace

Dataset CreateFieldDataset(hid_t file, const FieldSpec& spec, int64_t chunk_rows,
                           const Compression& compression, const std::string& path) {
  const std::string what = "creating dataset /" + spec.name;
  std::vector<hsize_t> dims = FieldDimensions(spec, 0);
  std::vector<hsize_t> max_dims = dims;
  max_dims[0] = H5S_UNLIMITED;
  std::vector<hsize_t> chunk = FieldDimensions(spec, chunk_rows);
  const int rank = static_cast<int>(dims.size());
  const Datatype type = StoredType(spec);
  Dataspace space(H5Screate_simple(rank, dims.data(), max_dims.data()));
  PropertyList create = UntimedDatasetCreation();
  PropertyList access(H5Pcreate(H5P_DATASET_ACCESS));
  if (!space || !access || H5Pset_chunk(create.get(), rank, chunk.data()) < 0 ||
      (StoredKind(spec) == FieldKind::kArray && !SetCompressionFilter(create.get(), compression)) ||
      H5Pset_chunk_cache(access.get(), 0, 0, 1.0) < 0) {
    throw StackError(ErrorCode::kIo, what, path);
  }
  Dataset dataset(H5Dcreate2(file, spec.name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                             create.get(), access.get()));
  if (!dataset) throw StackError(ErrorCode::kIo, what, path);
  return dataset;
}

void WriteFieldRows(hid_t dataset, const FieldSpec& spec, int64_t first_row,
                    const FieldColumn& column, const std::string& path) {
  const int64_t rows = column.rows();
  if (rows == 0) return;
  const std::string what =
      fmt::format("writing rows {} to {} of field {}", first_row, first_row + rows - 1, spec.name);
  const std::vector<hsize_t> extent = FieldDimensions(spec, first_row + rows);
  const std::vector<hsize_t> count = FieldDimensions(spec, rows);
  std::vector<hsize_t> start(extent.size(), 0);
  start[0] = static_cast<hsize_t>(first_row);
  if (H5Dset_extent(dataset, extent.data()) < 0) throw StackError(ErrorCode::kIo, what, path);
  Dataspace file_space(H5Dget_space(dataset));
  Dataspace memory_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  if (!file_space || !memory_space ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr) < 0) {
    throw StackError(ErrorCode::kIo, what, path);
  }
  const Datatype type = StoredType(spec);
  herr_t status = 0;
  if (StoredKind(spec) == FieldKind::kArray) {
    status = H5Dwrite(dataset, type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                      column.data().data());
  } else if (StoredKind(spec) == FieldKind::kBytes) {
    // HDF5 only reads through the pointers of a write.
    std::vector<hvl_t> values(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const auto value = column.row(r);
      values[static_cast<size_t>(r)] = {value.size(), const_cast<uint8_t*>(value.data())};
    }
    status = H5Dwrite(dataset, type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                      values.data());
  } else {
    // Variable-length strings are NUL-terminated in memory; a row holds no NUL of its own.
    std::vector<char> text;
    text.reserve(column.data().size() + static_cast<size_t>(rows));
    std::vector<size_t> starts;
    starts.reserve(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const auto value = column.row(r);
      starts.push_back(text.size());
      text.insert(text.end(), value.begin(), value.end());
      text.push_back('\0');
    }
    std::vector<const char*> values;
    values.reserve(starts.size());
    for (size_t start_of_row : starts) values.push_back(text.data() + start_of_row);
    status = H5Dwrite(dataset, type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                      values.data());
  }
  if (status < 0) throw StackError(ErrorCode::kIo, what, path);
}

}  // namespace h5feed::hdf5
