#pragma once
// A file the CIFAR and NumPy sources read records from by position (pread), as the conversion
// needs them: a 10 GiB array is never loaded whole, and only the rows a conversion touches are
// read from disk.
//
// Read, not memory-mapped: a file that another program truncates or rewrites while it is being
// converted (numpy.save onto the same path) ends the conversion with an error naming the file,
// where a mapping would have ended the process with SIGBUS on the next row.
//
// Thread-safety: ReadAt may be called from many threads at once (pread keeps no file position).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/random_access_file.h"

namespace h5feed::converters {

class InputFile {
 public:
  // Opens `path` for reading. Throws Error(kNotFound) when it does not exist,
  // kInvalidArgument when it is not a regular file (a folder, a pipe or a device; a pipe is
  // refused before it is opened, which would wait for a writer), kIo when it cannot be opened.
  explicit InputFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  // Its size when it was opened.
  uint64_t size() const { return file_->size(); }

  // Reads dest.size() bytes at `offset`. Throws Error(kIo) when the system refuses the read,
  // and when the file now ends before them: it was truncated after it was opened. That is
  // not a broken sample to skip (kCorrupt) but the input changing under the conversion, which
  // every later row would share: the conversion stops.
  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const;
  // Its first min(size(), bytes) bytes.
  std::vector<uint8_t> ReadStart(uint64_t bytes) const;

 private:
  std::unique_ptr<io::RandomAccessFile> file_;
};

}  // namespace h5feed::converters
