// FindOpenProbe (probe_location.h).

#include "probe/probe_location.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "probe/open_probe_protocol.h"

namespace h5feed::probe {
namespace {

namespace fs = std::filesystem;

// Set by lib/probe/CMakeLists.txt: the program's path relative to a tree's top
// ("libexec/h5feed/h5feed-open-probe"), and the install and build trees' own copies.
constexpr const char* kRelativePath = H5FEED_OPEN_PROBE_RELATIVE_PATH;
constexpr const char* kInstalledPath = H5FEED_OPEN_PROBE_INSTALLED_PATH;
constexpr const char* kBuiltPath = H5FEED_OPEN_PROBE_BUILT_PATH;

// Parents searched above a binary's folder: 4 reaches PREFIX from
// PREFIX/lib/python3/dist-packages/h5feed/, the deepest binary of an install tree.
constexpr int kParentsSearched = 4;

bool IsExecutableFile(const fs::path& path) {
  std::error_code ignored;
  return fs::is_regular_file(path, ignored) && ::access(path.c_str(), X_OK) == 0;
}

// The binary (shared object or program) this function's code lies in.
fs::path ThisBinary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&ThisBinary), &info) == 0 || !info.dli_fname ||
      std::string(info.dli_fname).find('/') == std::string::npos) {
    return {};  // the main program, named without a folder: RunningProgram covers it
  }
  std::error_code ignored;
  fs::path path = fs::canonical(info.dli_fname, ignored);
  return ignored ? fs::path{} : path;
}

fs::path RunningProgram() {
  std::error_code ignored;
  fs::path path = fs::read_symlink("/proc/self/exe", ignored);
  return ignored ? fs::path{} : path;
}

// Adds the candidates above `binary` (its folder and kParentsSearched parents).
void AddAbove(const fs::path& binary, std::vector<fs::path>& candidates) {
  if (binary.empty()) return;
  fs::path folder = binary.parent_path();
  for (int up = 0; up <= kParentsSearched && !folder.empty(); ++up) {
    candidates.push_back(folder / kRelativePath);
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
}

}  // namespace

ProbeLocation FindOpenProbe() {
  ProbeLocation location;
  if (const char* named = std::getenv(kProgramVariable); named && *named) {
    location.looked = std::string("$") + kProgramVariable + " = " + named;
    if (IsExecutableFile(named)) location.path = named;
    return location;
  }
  std::vector<fs::path> candidates;
  AddAbove(ThisBinary(), candidates);
  const fs::path program = RunningProgram();
  if (program != ThisBinary()) AddAbove(program, candidates);
  candidates.emplace_back(kInstalledPath);
  candidates.emplace_back(kBuiltPath);
  for (const fs::path& candidate : candidates) {
    if (IsExecutableFile(candidate)) {
      location.path = candidate.string();
      return location;
    }
  }
  location.looked = std::string(kRelativePath) + " above " +
                    (ThisBinary().empty() ? program.string() : ThisBinary().string()) +
                    ", " + kInstalledPath + ", " + kBuiltPath + "; $" + kProgramVariable +
                    " unset";
  return location;
}

}  // namespace h5feed::probe
