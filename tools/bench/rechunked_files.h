#pragma once
// The temporary rechunked copies of the sweep's input file: one file variant at a time,
// written through the converter's own code (Convert, as `h5feed rechunk` does, over the
// input's images as FileKind::OpenImages reads them) into a private folder that is removed
// with everything in it when this object goes away: at the end of the sweep, on an error, and
// on Ctrl-C (the sweep's interrupt flag cancels a conversion in progress, which removes its
// partial file). Only `kill -9` can leave the folder (".h5feed-sweep-XXXXXX" in the work
// folder) behind.
//
// The disk is checked before anything is written: the largest variant must fit in the free
// space of the work folder's filesystem (statvfs) and in the user's budget.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sample_source.h"
#include "sweep_plan.h"

namespace h5feed::bench {

// Bytes free to this (unprivileged) user on the filesystem holding `path`. Throws Error(kIo).
uint64_t FreeDiskBytes(const std::string& path);

// Throws Error(kNoSpace) when `needed` bytes exceed the free space of `folder`'s filesystem or
// `budget` (0 = no budget of its own), saying how much is needed, free and allowed.
void CheckDiskBudget(const std::string& folder, uint64_t needed, uint64_t budget);

class RechunkedFiles {
 public:
  // Creates a fresh private folder in `work_folder`. `open_images` opens the input's images
  // for each variant made. Throws Error(kIo).
  RechunkedFiles(std::function<std::unique_ptr<converters::SampleSource>()> open_images,
                 const std::string& work_folder);
  ~RechunkedFiles();  // removes the folder and everything in it
  RechunkedFiles(const RechunkedFiles&) = delete;
  RechunkedFiles& operator=(const RechunkedFiles&) = delete;

  const std::string& folder() const { return folder_; }

  // Removes the previous variant, then writes the input's images as `variant` (their order
  // kept) and returns its path. `progress(done, total)` is called as images are written. Throws
  // what the conversion throws: Error(kCancelled) when `cancel` is set, kNoSpace when the disk
  // fills.
  std::string Make(const FileVariant& variant, int threads, const std::atomic<bool>* cancel,
                   const std::function<void(int64_t, int64_t)>& progress);

 private:
  std::function<std::unique_ptr<converters::SampleSource>()> open_images_;
  std::string folder_;
  std::string current_;
};

}  // namespace h5feed::bench
