#pragma once
// Test fixtures shared by the source tests: a scratch folder removed at scope exit
// (support/temp_folder.h), writing bytes to a file, and running Debian's Python (numpy, h5py)
// to make real input files (support/run_python.h).

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::testing {

// The source tests' scratch folder is the project's shared test folder.
using ScratchDir = TempFolder;

inline void WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline void WriteText(const std::string& path, const std::string& text) {
  WriteFile(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

}  // namespace h5feed::testing
