#include "file_locking_option.h"

#include "parsed_option.h"

namespace h5feed::cli {

void AddFileLockingOption(CLI::App& command, FileLocking& value) {
  AddEnumOption(command, "--file-locking", value,
                "HDF5's shared file lock: auto (take it; go on without where the file system "
                "refuses locks, with a warning), on, off (NFS without lockd). "
                "HDF5_USE_FILE_LOCKING=FALSE also turns it off");
}

}  // namespace h5feed::cli
