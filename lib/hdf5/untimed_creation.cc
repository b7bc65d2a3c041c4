#include "hdf5/untimed_creation.h"

#include <string>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

PropertyList Untimed(hid_t property_class, const char* what) {
  PropertyList list(H5Pcreate(property_class));
  if (!list || H5Pset_obj_track_times(list.get(), false) < 0) {
    throw MakeError(ErrorCode::kInternal, "HDF5 failed {}: {}", what, ErrorStackText());
  }
  return list;
}

}  // namespace

PropertyList UntimedFileCreation() {
  return Untimed(H5P_FILE_CREATE, "making the file creation property list");
}

PropertyList UntimedDatasetCreation() {
  return Untimed(H5P_DATASET_CREATE, "making a dataset creation property list");
}

PropertyList UntimedGroupCreation() {
  return Untimed(H5P_GROUP_CREATE, "making a group creation property list");
}

Group CreateUntimedGroup(hid_t location, const char* name) {
  const PropertyList untimed = UntimedGroupCreation();
  Group group(H5Gcreate2(location, name, H5P_DEFAULT, untimed.get(), H5P_DEFAULT));
  if (!group) throw StackError(ErrorCode::kIo, "creating group " + std::string(name), location);
  return group;
}

}  // namespace h5feed::hdf5
