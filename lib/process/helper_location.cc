// FindHelper (helper_location.h).

#include "process/helper_location.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace h5feed::process {
namespace {

namespace fs = std::filesystem;

// Parents searched above a binary's folder: 4 reaches PREFIX from
// PREFIX/lib/python3/dist-packages/h5feed/, the deepest binary of an install tree.
constexpr int kParentsSearched = 4;

bool IsUsable(const fs::path& path, bool executable) {
  std::error_code ignored;
  return fs::is_regular_file(path, ignored) && (!executable || ::access(path.c_str(), X_OK) == 0);
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
void AddAbove(const fs::path& binary, const char* relative_path,
              std::vector<fs::path>& candidates) {
  if (binary.empty()) return;
  fs::path folder = binary.parent_path();
  for (int up = 0; up <= kParentsSearched && !folder.empty(); ++up) {
    candidates.push_back(folder / relative_path);
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
}

// The build tree's top: `helper`'s built path less its relative path; empty when it does not
// end so.
fs::path BuildTree(const Helper& helper) {
  const std::string_view built = helper.built_path;
  const std::string_view relative = helper.relative_path;
  if (built.size() <= relative.size() || !built.ends_with(relative)) return {};
  std::error_code ignored;
  return fs::weakly_canonical(fs::path(built.substr(0, built.size() - relative.size())), ignored);
}

// Whether `binary` (a canonical path) lies under the folder `tree`.
bool LiesIn(const fs::path& binary, const fs::path& tree) {
  if (binary.empty() || tree.empty()) return false;
  const fs::path inside = binary.lexically_relative(tree);
  return !inside.empty() && *inside.begin() != "..";
}

}  // namespace
}  // namespace h5feed::process

// Defined only in a program built against an installed tree through find_package(h5feed):
// h5feedConfig.cmake compiles it in (cmake/h5feed_package_prefix.cc.in), returning that tree's
// prefix as found then. Weak: null in every other program.
extern "C" const char* h5feed_package_prefix() __attribute__((weak));

namespace h5feed::process {
namespace {

// The prefix of the installed tree the program was built against, when it says one.
fs::path PackagePrefix() {
  if (h5feed_package_prefix == nullptr) return {};
  const char* prefix = h5feed_package_prefix();
  return prefix && *prefix ? fs::path(prefix) : fs::path();
}

}  // namespace

HelperLocation FindHelper(const Helper& helper) {
  HelperLocation location;
  if (const char* named = std::getenv(helper.variable); named && *named) {
    location.looked = std::string("$") + helper.variable + " = " + named;
    if (IsUsable(named, helper.executable)) location.path = named;
    return location;
  }
  std::vector<fs::path> candidates;
  const fs::path binary = ThisBinary();
  AddAbove(binary, helper.relative_path, candidates);
  const fs::path program = RunningProgram();
  if (program != binary) AddAbove(program, helper.relative_path, candidates);
  const fs::path package_prefix = PackagePrefix();
  if (!package_prefix.empty()) candidates.push_back(package_prefix / helper.relative_path);
  candidates.emplace_back(helper.installed_path);
  const fs::path build_tree = BuildTree(helper);
  const bool built_here = LiesIn(binary, build_tree) || LiesIn(program, build_tree);
  if (built_here) candidates.emplace_back(helper.built_path);
  for (const fs::path& candidate : candidates) {
    if (IsUsable(candidate, helper.executable)) {
      location.path = candidate.string();
      return location;
    }
  }
  location.looked =
      std::string(helper.relative_path) + " above " +
      (binary.empty() ? program.string() : binary.string()) + ", " +
      (package_prefix.empty() ? std::string()
                              : (package_prefix / helper.relative_path).string() + ", ") +
      helper.installed_path + (built_here ? ", " + std::string(helper.built_path) : "") + "; $" +
      helper.variable + " unset";
  return location;
}

}  // namespace h5feed::process
