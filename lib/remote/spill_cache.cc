// SpillCache (spill_cache.h).
#include "remote/spill_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "codec/checksum.h"
#include "h5feed/error.h"
#include "io/io_errors.h"
#include "make_error.h"

namespace h5feed::remote {
namespace {

namespace fs = std::filesystem;

constexpr std::array<char, 8> kMagic = {'H', '5', 'F', 'S', 'P', 'I', 'L', '1'};
constexpr size_t kHeaderBytes = 40;
constexpr char kTemporaryPrefix[] = ".tmp-";
// A temporary file this old was left by a process that died while writing it.
constexpr auto kStaleTemporary = std::chrono::minutes(10);

struct Header {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t checksum = 0;
  uint64_t group = 0;
};

std::array<uint8_t, kHeaderBytes> Encode(const Header& header) {
  std::array<uint8_t, kHeaderBytes> bytes{};
  std::memcpy(bytes.data(), kMagic.data(), kMagic.size());
  const uint64_t fields[] = {header.offset, header.length, header.checksum, header.group};
  std::memcpy(bytes.data() + 8, fields, sizeof(fields));  // little-endian hosts only (x86, ARM)
  return bytes;
}

bool Decode(const std::array<uint8_t, kHeaderBytes>& bytes, Header& header) {
  if (std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) return false;
  uint64_t fields[4];
  std::memcpy(fields, bytes.data() + 8, sizeof(fields));
  header = Header{fields[0], fields[1], fields[2], fields[3]};
  return true;
}

// pread until `dest` is full; false on an error or an early end.
bool ReadFully(int fd, uint64_t offset, std::span<uint8_t> dest) {
  size_t done = 0;
  while (done < dest.size()) {
    const ssize_t got =
        ::pread(fd, dest.data() + done, dest.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

bool WriteFully(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    done += static_cast<size_t>(put);
  }
  return true;
}

std::string Hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

uint64_t GroupOf(const std::string& source, const std::string& version) {
  const std::string key = source + "\n" + version;
  return codec::ChunkChecksum(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
}

// An exclusive flock(2) of a file, released by the destructor.
class FolderLock {
 public:
  explicit FolderLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) {
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
    }
  }
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_;
};

struct Kept {
  fs::path path;
  uint64_t bytes;
  fs::file_time_type last_read;
  bool ours;  // of the object this cache reads
};

}  // namespace

SpillCache::SpillCache(const std::string& dir, uint64_t budget_bytes, const std::string& source,
                       const std::string& version, const std::string& dir_option)
    : dir_(dir),
      budget_(budget_bytes),
      group_(GroupOf(source, version)),
      folder_(dir + "/" + Hex(group_)) {
  std::error_code ec;
  fs::create_directories(folder_, ec);
  const std::string note = folder_ + "/SOURCE";
  if (!ec && !fs::exists(note, ec)) {
    std::ofstream(note) << source << "\n" << version << "\n";
  }
  if (ec || ::access(folder_.c_str(), W_OK) != 0) {
    throw MakeError(
        ErrorCode::kIo,
        "cannot use {} as the spill folder of {}: {}; give a writable folder on a local disk "
        "({})",
        dir, source, (ec ? ec.message() : io::ErrnoText(errno)), dir_option);
  }
}

std::string SpillCache::EntryPath(uint64_t offset, uint64_t length) const {
  return folder_ + "/" + std::to_string(offset) + "-" + std::to_string(length);
}

bool SpillCache::Contains(uint64_t offset, uint64_t length) const {
  struct stat info {};
  return ::stat(EntryPath(offset, length).c_str(), &info) == 0 &&
         static_cast<uint64_t>(info.st_size) == kHeaderBytes + length;
}

bool SpillCache::Read(uint64_t offset, std::span<uint8_t> dest) {
  const std::string path = EntryPath(offset, dest.size());
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ++misses_;
    return false;
  }
  std::array<uint8_t, kHeaderBytes> raw{};
  Header header;
  const bool sound = ReadFully(fd, 0, raw) && Decode(raw, header) && header.offset == offset &&
                     header.length == dest.size() && header.group == group_ &&
                     ReadFully(fd, kHeaderBytes, dest) &&
                     codec::ChunkChecksum(dest) == header.checksum;
  if (sound) ::futimens(fd, nullptr);  // read now: the last to go, among other objects' bytes
  ::close(fd);
  if (sound) {
    ++hits_;
    return true;
  }
  ::unlink(path.c_str());  // torn by a crash, or damaged on the disk
  ++damaged_;
  ++misses_;
  return false;
}

void SpillCache::Remove(uint64_t offset, uint64_t length) {
  ::unlink(EntryPath(offset, length).c_str());
}

bool SpillCache::MakeRoom(uint64_t needed) {
  // Other processes sharing the folder write too: it is measured again after each 1/32 of the
  // budget this one wrote, so the folder exceeds the budget by at most that per process.
  if (measured_ && used_ + needed <= budget_ && written_since_scan_ < budget_ / 32) {
    used_ += needed;
    written_since_scan_ += needed;
    return true;
  }
  // Measure again (other processes write here too), and free what other objects hold.
  FolderLock lock(dir_ + "/.lock");
  std::vector<Kept> kept;
  uint64_t used = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& folder : fs::directory_iterator(dir_, ec)) {
    if (!folder.is_directory(ec)) continue;
    const bool ours = folder.path().filename() == Hex(group_);
    for (const auto& entry : fs::directory_iterator(folder.path(), ec)) {
      const uint64_t bytes = entry.file_size(ec);
      if (ec) continue;  // removed meanwhile
      const auto modified = entry.last_write_time(ec);
      const std::string name = entry.path().filename().string();
      if (name.rfind(kTemporaryPrefix, 0) == 0 && now - modified > kStaleTemporary) {
        fs::remove(entry.path(), ec);
        continue;
      }
      used += bytes;
      if (name != "SOURCE") kept.push_back({entry.path(), bytes, modified, ours});
    }
  }
  std::sort(kept.begin(), kept.end(),
            [](const Kept& a, const Kept& b) { return a.last_read < b.last_read; });
  for (const Kept& entry : kept) {
    if (used + needed <= budget_) break;
    if (entry.ours) continue;
    if (fs::remove(entry.path, ec)) used -= std::min(used, entry.bytes);
  }
  measured_ = true;
  written_since_scan_ = 0;
  used_ = used;
  if (used_ + needed > budget_) return false;
  used_ += needed;
  written_since_scan_ += needed;
  return true;
}

void SpillCache::Write(uint64_t offset, std::span<const uint8_t> bytes) {
  const uint64_t size = kHeaderBytes + bytes.size();
  {
    std::lock_guard lock(mutex_);
    if (!MakeRoom(size)) {
      ++not_written_;
      return;
    }
  }
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = folder_ + "/" + kTemporaryPrefix + std::to_string(::getpid()) +
                                "-" + std::to_string(counter++);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const auto header = Encode(Header{offset, bytes.size(), codec::ChunkChecksum(bytes), group_});
  bool done = fd >= 0 && WriteFully(fd, header) && WriteFully(fd, bytes);
  if (fd >= 0) done = ::close(fd) == 0 && done;
  // Whole or not at all: readers see the entry only once it is complete.
  done = done && ::rename(temporary.c_str(), EntryPath(offset, bytes.size()).c_str()) == 0;
  if (done) {
    ++written_;
    return;
  }
  ::unlink(temporary.c_str());
  ++not_written_;
  std::lock_guard lock(mutex_);
  used_ -= std::min(used_, size);
}

SpillStats SpillCache::stats() const {
  return SpillStats{hits_.load(), misses_.load(), damaged_.load(), written_.load(),
                    not_written_.load()};
}

}  // namespace h5feed::remote
