// PrependHdf5PluginFolder (h5feed/hdf5_plugins.h).

#include <hdf5.h>

#include <algorithm>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/hdf5_plugins.h"
#include "make_error.h"

namespace h5feed {
namespace {

// HDF5's plugin search path, in order: $HDF5_PLUGIN_PATH's folders, or HDF5's default folder
// when that is unset, plus those prepended or appended since.
std::vector<std::string> PluginPath() {
  unsigned count = 0;
  if (H5PLsize(&count) < 0) {
    throw Error(ErrorCode::kInternal,
                "HDF5 could not say its plugin search path (H5PLsize failed); other HDF5 code in "
                "this process will need HDF5_PLUGIN_PATH to read h5feed's zstd files");
  }
  std::vector<std::string> folders;
  for (unsigned i = 0; i < count; ++i) {
    const ssize_t length = H5PLget(i, nullptr, 0);
    if (length < 0) continue;
    std::string folder(static_cast<size_t>(length) + 1, '\0');
    H5PLget(i, folder.data(), folder.size());
    folder.resize(static_cast<size_t>(length));
    folders.push_back(std::move(folder));
  }
  return folders;
}

}  // namespace

std::vector<std::string> PrependHdf5PluginFolder(const std::string& folder) {
  std::vector<std::string> folders = PluginPath();
  if (std::find(folders.begin(), folders.end(), folder) != folders.end()) return folders;
  if (H5PLprepend(folder.c_str()) < 0) {
    throw MakeError(ErrorCode::kInternal,
                    "HDF5 refused to add {} to its plugin search path (H5PLprepend failed); other "
                    "HDF5 code in this process reads h5feed's zstd files only with "
                    "HDF5_PLUGIN_PATH={}",
                    folder, folder);
  }
  return PluginPath();
}

}  // namespace h5feed
