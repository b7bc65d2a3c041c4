// OpenHdf5File (open_hdf5_file.h).

#include "hdf5/open_hdf5_file.h"

#include <array>
#include <filesystem>
#include <memory>
#include <optional>

#include "h5feed/error.h"
#include "h5feed/location.h"
#include "hdf5/error.h"
#include "hdf5/range_driver.h"
#include "make_error.h"
#include "remote/open_remote_file.h"

namespace h5feed::hdf5 {
namespace {

std::string NotHdf5(const std::string& shown) {
  return shown + " is not an HDF5 file (it does not start with an HDF5 signature)";
}

// H5Fis_hdf5's test on a file HDF5 cannot open by name: its signature at byte 0, 512, 1024,
// 2048 ... (a user block before it).
bool HasHdf5Signature(const io::RandomAccessFile& file) {
  constexpr std::array<uint8_t, 8> kSignature = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  std::array<uint8_t, 8> found{};
  for (uint64_t at = 0; at + found.size() <= file.size(); at = at == 0 ? 512 : at * 2) {
    file.ReadAt(at, found);
    if (found == kSignature) return true;
    if (at >= (uint64_t{1} << 20)) break;  // user blocks beyond 1 MiB are not made in practice
  }
  return false;
}

std::shared_ptr<const remote::RemoteFile> OpenRemoteHdf5(const Location& location) {
  std::shared_ptr<const remote::RemoteFile> source = remote::OpenRemoteFile(location);
  const std::string& shown = source->path();
  if (source->size() == 0)
    throw MakeError(ErrorCode::kCorrupt, "{} is empty, not an HDF5 file", shown);
  if (!HasHdf5Signature(*source)) throw Error(ErrorCode::kCorrupt, NotHdf5(shown));
  return source;
}

// The local file's size; 0 when the file system does not say.
uint64_t CheckLocalHdf5(const std::string& path) {
  namespace fs = std::filesystem;
  // An empty string (an unset variable in the caller's code) would read " does not exist".
  if (path.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the file's path is empty; give the path (or URL) of an HDF5 file");
  }
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    throw Error::MissingInput(fmt::format("{} does not exist{}", path, UnreadableUrlNote(path)));
  }
  if (!fs::is_regular_file(status)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is not a regular file; give the path of an HDF5 file", path);
  }
  const uint64_t bytes = fs::file_size(path, ec);
  if (bytes == 0 && !ec)
    throw MakeError(ErrorCode::kCorrupt, "{} is empty, not an HDF5 file", path);
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw StackError(ErrorCode::kIo, "reading the start of", path);
  if (is_hdf5 == 0) throw Error(ErrorCode::kCorrupt, NotHdf5(path));
  return ec ? 0 : bytes;
}

ReadOnlyFile OpenRemote(const Location& location) {
  std::shared_ptr<const remote::RemoteFile> source = OpenRemoteHdf5(location);
  const std::string& shown = source->path();
  ReadOnlyFile result;
  result.bytes = source->size();
  result.version = source->version();
  result.over_network = true;
  PropertyList access = RangeDriverAccess(std::move(source));
  TakeDriverError();
  result.file = File(H5Fopen(shown.c_str(), H5F_ACC_RDONLY, access.get()));
  if (!result.file) {
    if (std::optional<Error> failed = TakeDriverError()) throw *failed;
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} cannot be opened by HDF5: truncated or not an HDF5 file; upload it again (HDF5: {})",
        shown, ErrorStackText());
  }
  return result;
}

}  // namespace

ReadOnlyFile OpenHdf5File(const Location& location, FileLocking locking) {
  if (location.remote()) return OpenRemote(location);
  const uint64_t bytes = CheckLocalHdf5(location.text());
  ReadOnlyFile result = OpenReadOnlyFile(location.text(), locking);
  result.bytes = bytes;
  return result;
}

void CheckHdf5Start(const Location& location) {
  if (location.remote()) {
    OpenRemoteHdf5(location);
  } else {
    CheckLocalHdf5(location.text());
  }
}

}  // namespace h5feed::hdf5
