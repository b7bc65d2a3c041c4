#include "format/box_classes_table.h"

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "make_error.h"

namespace h5feed::format {

BoxClasses ReadBoxClasses(hid_t file, const std::string& path) {
  BoxClasses classes;
  if (!hdf5::LinkExists(file, schema::kBoxClasses)) return classes;
  classes.names = hdf5::ReadStringDataset(file, schema::kBoxClasses);
  classes.source_ids = hdf5::ReadIntegerDataset(file, schema::kBoxClassIds, path);
  if (classes.names.size() != classes.source_ids.size()) {
    throw MakeError(ErrorCode::kCorrupt, "{} has {} /box_classes but {} /box_class_ids", path,
                    classes.names.size(), classes.source_ids.size());
  }
  return classes;
}

BoxClasses ReadBoxClasses(const Location& location, FileLocking locking) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::File file = std::move(hdf5::OpenHdf5File(location, locking).file);
  return ReadBoxClasses(file.get(), location.display());
}

}  // namespace h5feed::format
