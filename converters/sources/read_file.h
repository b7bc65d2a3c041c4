#pragma once
// Reads an input file whole (or its first bytes) into a buffer the caller reuses: a conversion
// reads tens of thousands of small files, one after another, on each thread.

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::converters {

// Reads at most `limit` bytes of `path` (all of it when limit < 0) into `bytes`, resized to
// what was read. Throws Error(kCorrupt) naming the file when it cannot be opened or read, is
// not a regular file (a FIFO, a device: never waited on), or shrinks while read: the converter
// skips such a file as it skips a broken image.
void ReadFileInto(const std::string& path, std::vector<uint8_t>& bytes, int64_t limit = -1);

}  // namespace h5feed::converters
