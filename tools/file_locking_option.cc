#include "file_locking_option.h"

namespace h5feed::cli {

void AddFileLockingOption(CLI::App& command, std::string& value) {
  command
      .add_option("--file-locking", value,
                  "HDF5's shared file lock: auto (take it; go on without where the file "
                  "system refuses locks, with a warning), on, off (NFS without lockd). "
                  "HDF5_USE_FILE_LOCKING=FALSE also turns it off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
}

FileLocking ParseFileLocking(const std::string& value) {
  if (value == "on") return FileLocking::kOn;
  if (value == "off") return FileLocking::kOff;
  return FileLocking::kAuto;
}

}  // namespace h5feed::cli
