#pragma once
// Runs Debian's Python (H5FEED_PYTHON: /usr/bin/python3, which has numpy and h5py) from a unit
// test, to make real input files with the tools users have, and requires it to succeed.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

namespace h5feed::testing {

// Runs `code` with `python3 -c`; `code` must not contain single quotes.
inline void RunPython(const std::string& code) {
  const std::string command = std::string(H5FEED_PYTHON) + " -c '" + code + "'";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
}

}  // namespace h5feed::testing
