// TypeName and FilterName (type_names.h).

#include "hdf5/type_names.h"

namespace h5feed::hdf5 {
namespace {

// Registered filter ids (support.hdfgroup.org, "Registered Filter Plugins") h5py users meet.
constexpr int kLzfFilter = 32000;  // h5py's own
constexpr int kBloscFilter = 32001;
constexpr int kLz4Filter = 32004;
constexpr int kBitshuffleFilter = 32008;
constexpr int kZstdFilter = 32015;  // h5feed's (codec/zstd_filter.h)

std::string WithLevel(const char* name, std::span<const unsigned> values) {
  std::string text = name;
  if (!values.empty()) text.append(":").append(std::to_string(values[0]));
  return text;
}

}  // namespace

std::string TypeName(hid_t type) {
  const size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      std::string name =
          (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
      if (size > 1 && H5Tget_order(type) == H5T_ORDER_BE) name += " (big-endian)";
      return name;
    }
    case H5T_FLOAT: return "float" + std::to_string(8 * size);
    case H5T_STRING:
      return H5Tis_variable_str(type) > 0 ? "string" : "string[" + std::to_string(size) + "]";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "vlen";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

std::string FilterName(int id, std::span<const unsigned> values, const char* stored_name) {
  switch (id) {
    case H5Z_FILTER_DEFLATE: return WithLevel("gzip", values);
    case kZstdFilter: return WithLevel("zstd", values);
    case H5Z_FILTER_SHUFFLE: return "shuffle";
    case H5Z_FILTER_FLETCHER32: return "fletcher32";
    case H5Z_FILTER_SZIP: return "szip";
    case H5Z_FILTER_NBIT: return "nbit";
    case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
    case kLzfFilter: return "lzf";
    case kBloscFilter: return "blosc";
    case kLz4Filter: return "lz4";
    case kBitshuffleFilter: return "bitshuffle";
    default:
      return stored_name != nullptr && stored_name[0] != '\0'
                 ? std::string(stored_name) + " (filter " + std::to_string(id) + ")"
                 : "filter " + std::to_string(id);
  }
}

}  // namespace h5feed::hdf5
