#include "format/partial_file.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>

#include "h5feed/error.h"
#include "io/os_error.h"
#include "make_error.h"

namespace h5feed::format {
namespace {

namespace fs = std::filesystem;

std::string PartialPrefix(const std::string& path) {
  // Appended rather than `"." + string`: GCC 12 warns falsely (-Wrestrict) on that operator+.
  std::string prefix = ".";
  prefix += fs::path(path).filename().string();
  prefix += ".partial-";
  return prefix;
}

bool ProcessIsGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

void Sync(const std::string& path, int flags, const char* what) {
  int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw io::SystemError(what, path, errno);
  int status = fsync(fd);
  int saved = errno;
  close(fd);
  if (status != 0) throw io::SystemError(what, path, saved);
}

[[noreturn]] void ThrowExists(const std::string& to, const std::string& overwrite_option) {
  throw MakeError(
      ErrorCode::kAlreadyExists,
      "{} appeared while it was being written (another program created it); it was left as it is. "
      "Remove it or allow overwriting ({}), then run again",
      to, overwrite_option);
}

}  // namespace

std::string FolderOf(const std::string& path) {
  fs::path folder = fs::path(path).parent_path();
  return folder.empty() ? std::string(".") : folder.string();
}

std::string PartialPath(const std::string& path, pid_t pid) {
  return (fs::path(FolderOf(path)) / (PartialPrefix(path) + std::to_string(pid))).string();
}

int RemoveStalePartials(const std::string& path) {
  const std::string prefix = PartialPrefix(path);
  std::error_code error;
  fs::directory_iterator entries(FolderOf(path), error);
  if (error) return 0;
  int removed = 0;
  for (const fs::directory_entry& entry : entries) {
    std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    pid_t pid = 0;
    auto [stop, status] = std::from_chars(begin, end, pid);
    if (status != std::errc() || stop != end || pid <= 0 || pid == getpid()) continue;
    if (ProcessIsGone(pid) && fs::remove(entry.path(), error)) ++removed;
  }
  return removed;
}

void SyncFile(const std::string& path) { Sync(path, O_RDONLY, "syncing the file to disk"); }

void SyncFolder(const std::string& folder) {
  Sync(folder, O_RDONLY | O_DIRECTORY, "syncing the folder to disk");
}

void RenameIntoPlace(const std::string& from, const std::string& to, bool overwrite,
                     const std::string& overwrite_option) {
  if (overwrite) {
    if (rename(from.c_str(), to.c_str()) != 0) {
      throw io::SystemError("renaming " + from + " onto the output", to, errno);
    }
    return;
  }
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  if (errno == EEXIST) ThrowExists(to, overwrite_option);
  if (errno != EINVAL && errno != ENOSYS) {
    throw io::SystemError("renaming " + from + " onto the output", to, errno);
  }
  // The file system cannot rename without replacing (NFS, some FUSE): link() fails with
  // EEXIST just as atomically, and the temporary name is unlinked after.
  if (link(from.c_str(), to.c_str()) == 0) {
    unlink(from.c_str());
    return;
  }
  if (errno == EEXIST) ThrowExists(to, overwrite_option);
  throw io::SystemError("linking " + from + " to the output", to, errno);
}

}  // namespace h5feed::format
