// HoldsByteSequences and ReadByteSequence (byte_sequences.h).

#include "hdf5/byte_sequences.h"

#include <exception>

#include "hdf5/error.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {
namespace {

// What HDF5's variable-length memory manager calls back with (H5Pset_vlen_mem_manager). HDF5
// calls from C: nothing may be thrown through it.
struct Placement {
  const PlaceBytes* place = nullptr;
  std::exception_ptr error;
};

void* Place(size_t bytes, void* info) {
  auto* placement = static_cast<Placement*>(info);
  try {
    return (*placement->place)(bytes);
  } catch (...) {
    placement->error = std::current_exception();
    return nullptr;
  }
}

void Keep(void*, void*) {}  // the memory is the caller's

// The memory type of one byte that copies the stored bytes as they are: HDF5 converts int8 to
// uint8 by value, so a signed byte of -1 (a JPEG's 0xFF) would arrive as 0. Read as signed, the
// bytes are the file's whatever their sign, and the caller sees them as uint8_t.
hid_t MemoryByteType(hid_t dataset) {
  const Datatype type(H5Dget_type(dataset));
  const Datatype base(type ? H5Tget_super(type.get()) : H5I_INVALID_HID);
  const bool is_signed = base && H5Tget_sign(base.get()) == H5T_SGN_2;
  return is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8;
}

}  // namespace

bool HoldsByteSequences(hid_t dataset) {
  const Datatype type(H5Dget_type(dataset));
  if (!type || H5Tget_class(type.get()) != H5T_VLEN) return false;
  const Datatype base(H5Tget_super(type.get()));
  return base && H5Tget_class(base.get()) == H5T_INTEGER && H5Tget_size(base.get()) == 1;
}

std::optional<std::span<uint8_t>> ReadByteSequence(hid_t dataset, int64_t row,
                                                   const PlaceBytes& place) {
  KeepErrorStack keep;  // before the handles: the stack outlives their closing
  Placement placement{&place, nullptr};
  hvl_t element{0, nullptr};
  const Datatype bytes_type(H5Tvlen_create(MemoryByteType(dataset)));
  const Dataspace file_space(H5Dget_space(dataset));
  const hsize_t start[1] = {static_cast<hsize_t>(row)};
  const hsize_t one[1] = {1};
  const Dataspace memory_space(H5Screate_simple(1, one, nullptr));
  const PropertyList transfer(H5Pcreate(H5P_DATASET_XFER));
  const bool ok =
      bytes_type && file_space && memory_space && transfer &&
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, one, nullptr) >= 0 &&
      H5Pset_vlen_mem_manager(transfer.get(), Place, &placement, Keep, nullptr) >= 0 &&
      H5Dread(dataset, bytes_type.get(), memory_space.get(), file_space.get(), transfer.get(),
              &element) >= 0;
  if (placement.error) std::rethrow_exception(placement.error);
  if (!ok) {
    keep.Keep();
    return std::nullopt;
  }
  return std::span<uint8_t>(static_cast<uint8_t*>(element.p), element.len);
}

}  // namespace h5feed::hdf5
