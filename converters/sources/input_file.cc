#include "sources/input_file.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// Refuses what is not a regular file before it is opened: opening a pipe waits for a writer.
void CheckRegularFile(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    throw Error::MissingInput(fmt::format("{} does not exist", path));
  }
  if (!error && status.type() != std::filesystem::file_type::regular) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is not a regular file (a folder, a pipe or a device); give the path of "
                    "the file itself",
                    path);
  }
}

}  // namespace

InputFile::InputFile(const std::string& path) {
  CheckRegularFile(path);
  file_ = io::OpenPosixFile(path);
}

void InputFile::ReadAt(uint64_t offset, std::span<uint8_t> dest) const {
  try {
    file_->ReadAt(offset, dest);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt) throw;
    throw MakeError(ErrorCode::kIo,
                    "{} ends before byte {}, but it had {} bytes when it was opened: another "
                    "program truncated or rewrote it while it was being read. Convert again once "
                    "the file is complete",
                    path(), offset + dest.size(), size());
  }
}

std::vector<uint8_t> InputFile::ReadStart(uint64_t bytes) const {
  std::vector<uint8_t> start(std::min(bytes, size()));
  ReadAt(0, start);
  return start;
}

}  // namespace h5feed::converters
