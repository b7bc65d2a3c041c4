#pragma once
// A remote object's bytes kept on a local disk, so that later epochs (and later runs) read
// them there instead of over the network: each range read from the object is one file in a
// folder of its own (per URL and version), written to a temporary name and renamed into place,
// and checked against its own XXH3-64 when it is read back. A file torn by a crash, damaged on
// the disk or left half-written reads as absent (and is removed); a replaced object (another
// ETag) has another folder, so its bytes never mix with the old one's.
//
// Several processes (the ranks of one node) may share a folder: entries appear whole through
// rename(2), and the eviction that keeps the folder within its byte budget runs under an
// exclusive flock(2) of DIR/.lock. Each process measures the folder again after writing 1/32
// of the budget, so the folder holds at most the budget and 1/32 of it per process. Eviction:
// entries of other objects and versions go first, least recently read first; the object being
// read is never evicted for itself, and once the budget is full its new ranges are not kept
// (epochs in independent orders read every chunk once: any fixed set of chunks serves the same
// share of reads, while replacing chunks as an epoch goes would evict each one before its next
// use, LRU's worst case).
//
// Layout (docs/remote.md): DIR/<16 hex digits of XXH3 of URL and version>/<offset>-<length>,
// each file a 40-byte header (magic "H5FSPIL1", offset, length, XXH3-64 of the bytes, the
// folder's hash) then the bytes; DIR/<folder>/SOURCE names the URL and version for people.
//
// Thread-safety: every member may be called from many threads at once.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>

namespace h5feed::remote {

struct SpillStats {
  uint64_t hits = 0;         // reads served from the disk
  uint64_t misses = 0;       // reads not found (or found damaged)
  uint64_t damaged = 0;      // entries that failed their check, removed
  uint64_t written = 0;      // entries written
  uint64_t not_written = 0;  // ranges not kept: the budget was full, or the disk refused
};

class SpillCache {
 public:
  // Opens (creating what is missing) the folder `dir` for `source` (a URL as messages show
  // it, without query) at `version` (RemoteFile::version). Throws Error(kIo) when `dir`
  // cannot be created or written, naming the option that gave it as `dir_option` spells it
  // (RemoteOptions::option_names).
  SpillCache(const std::string& dir, uint64_t budget_bytes, const std::string& source,
             const std::string& version, const std::string& dir_option = "spill_dir");

  // Fills `dest` with the kept bytes at `offset` when they are here and pass their check;
  // false otherwise (absent, or damaged and now removed).
  bool Read(uint64_t offset, std::span<uint8_t> dest);
  bool Contains(uint64_t offset, uint64_t length) const;
  // Keeps `bytes` (read at `offset`) if the budget has room; a disk that refuses (full,
  // read-only) costs the copy, never the read.
  void Write(uint64_t offset, std::span<const uint8_t> bytes);
  // Removes what is kept at that range (its bytes failed a later check).
  void Remove(uint64_t offset, uint64_t length);

  SpillStats stats() const;
  const std::string& folder() const { return folder_; }

 private:
  std::string EntryPath(uint64_t offset, uint64_t length) const;
  // The folder's use, measured again (under DIR/.lock), less what eviction frees for
  // `needed` more bytes; true when they fit. Under mutex_.
  bool MakeRoom(uint64_t needed);

  const std::string dir_;
  const uint64_t budget_;
  const uint64_t group_;  // XXH3 of source and version
  const std::string folder_;

  std::mutex mutex_;
  // State below is protected by mutex_.
  uint64_t used_ = 0;      // bytes in DIR as last measured, plus what was written since
  bool measured_ = false;  // used_ measured at least once
  uint64_t written_since_scan_ = 0;

  std::atomic<uint64_t> hits_{0}, misses_{0}, damaged_{0}, written_{0}, not_written_{0};
};

}  // namespace h5feed::remote
