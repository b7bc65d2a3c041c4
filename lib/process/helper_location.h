#pragma once
// Where a helper that h5feed installs beside its binaries lies: the open probe program
// (probe_location.h) and the module holding OpenCV's image codecs (converters/image). The build
// tree puts each where `cmake --install` does, at one path relative to a tree's top (e.g.
// "libexec/h5feed/h5feed-open-probe"), so every binary of either tree (the h5feed command in
// bin/ or tools/, libh5feed.so in lib/, the Python module in python/h5feed/ or
// lib/python3/dist-packages/h5feed/, a test) finds it a few folders above its own. Looked for,
// in order:
//   1. $VARIABLE, when set (a path; only that is tried);
//   2. the relative path in the folder of the binary holding this code, or in one of its 4
//      parents;
//   3. the same from the running program (/proc/self/exe), when that is another binary;
//   4. under the installed tree a program linking h5feed::h5feed was built against
//      (find_package(h5feed) compiles its prefix in: h5feedConfig.cmake), wherever that tree
//      was installed (`cmake --install --prefix`) or moved before;
//   5. under the install prefix this library was configured with;
//   6. in the build tree this library was built in, only from a binary that lies in that tree
//      (a test deeper than 4 folders): an installed binary never reaches into the build tree
//      it was built in, which may be gone, rebuilt from other sources or another user's.
// A program linking the library otherwise (its own build, not find_package) from a tree
// installed to another prefix than the configured one sets $VARIABLE.
//
// Thread-safety: safe to call from many threads at once (reads the environment and stats files).

#include <string>

namespace h5feed::process {

struct Helper {
  const char* variable;        // the environment variable that may name it
  const char* relative_path;   // under a build or install tree's top
  const char* installed_path;  // absolute, under the configured install prefix
  const char* built_path;      // absolute, in the build tree: its top + relative_path
  bool executable;             // a program (must be executable) rather than a loadable module
};

struct HelperLocation {
  std::string path;    // an existing file; empty when none was found
  std::string looked;  // where it was looked for, for the message when it was not found
};

HelperLocation FindHelper(const Helper& helper);

}  // namespace h5feed::process
