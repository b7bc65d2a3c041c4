#pragma once
// Damage for tests: one byte of a file flipped in place, as a bad disk sector or a stray write
// would leave it.

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace h5feed::testing {

// XORs the byte at `offset` of the file at `path` with `mask`.
inline void FlipByteInFile(const std::string& path, uint64_t offset, uint8_t mask = 0xFF) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  REQUIRE(file.good());
  file.seekg(static_cast<std::streamoff>(offset));
  char byte = 0;
  file.get(byte);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(static_cast<char>(byte ^ static_cast<char>(mask)));
  REQUIRE(file.good());
}

}  // namespace h5feed::testing
