#pragma once
// Datasets of variable-length byte sequences, one encoded image file (JPEG, PNG, ...) per
// element: what h5py writes for h5py.vlen_dtype(np.uint8) (or of int8: bytes either way), read
// by the converters' encoded HDF5 source. Call under hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace h5feed::hdf5 {

// Whether the elements of open dataset `dataset` are variable-length sequences of 1-byte
// integers, whatever its rank (the caller checks that: dataset_listing.h).
bool HoldsByteSequences(hid_t dataset);

// Memory for an element of `bytes` bytes, or nullptr when there is none to give now; HDF5
// writes the element there and never frees it.
using PlaceBytes = std::function<uint8_t*(size_t bytes)>;

// Element `row` of `dataset` (HoldsByteSequences), read into the memory `place` gives: its bytes
// there, as stored (an int8 element's bytes too, never converted by value). nullopt when HDF5
// failed (place's nullptr included), leaving its error stack for the caller's StackError. What
// `place` throws is rethrown once HDF5 has returned.
std::optional<std::span<uint8_t>> ReadByteSequence(hid_t dataset, int64_t row,
                                                   const PlaceBytes& place);

}  // namespace h5feed::hdf5
