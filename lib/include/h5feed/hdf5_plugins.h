#pragma once
// HDF5's plugin search path, for a program that reads h5feed's zstd files with other HDF5 code
// in the same process (h5py beside `import h5feed`): the folder holding h5feed's zstd filter
// plugin put at its front, as `import hdf5plugin` does for its own. The Python module calls it
// at import (python/h5feed/_hdf5_plugins.py).

#include <string>
#include <vector>

namespace h5feed {

// Puts `folder` at the front of HDF5's plugin search path unless it is there already, and
// returns the path after the change. Call it before other threads use HDF5 (at start-up):
// nothing else changes the path, so it takes no lock. Throws Error(kInternal) when HDF5 cannot
// say or change its search path.
std::vector<std::string> PrependHdf5PluginFolder(const std::string& folder);

}  // namespace h5feed
