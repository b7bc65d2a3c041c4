#pragma once
// Test fixtures shared by the source tests: a scratch folder removed at scope exit, writing
// bytes to a file, and running Debian's Python (numpy, h5py) to make real input files.

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

namespace h5feed::testing {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "h5feed-test-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

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

// Runs `code` with H5FEED_PYTHON (Debian's /usr/bin/python3, which has numpy and h5py) and
// requires it to succeed. `code` must not contain single quotes.
inline void RunPython(const std::string& code) {
  std::string command = std::string(H5FEED_PYTHON) + " -c '" + code + "'";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
}

}  // namespace h5feed::testing
