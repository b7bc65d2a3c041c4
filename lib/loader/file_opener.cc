// ScopedFileOpener and OpenChunkFile (loader_testing.h): the Loader's file-access seam.
#include <utility>

#include "loader/loader_testing.h"
#include "remote/open_file.h"

namespace h5feed::loader {
namespace {

// Empty: remote::OpenFile. Set only by tests, for the thread that opens a loader.
thread_local FileOpener current_opener;

}  // namespace

ScopedFileOpener::ScopedFileOpener(FileOpener opener)
    : previous_(std::exchange(current_opener, std::move(opener))) {}

ScopedFileOpener::~ScopedFileOpener() { current_opener = std::move(previous_); }

std::unique_ptr<io::RandomAccessFile> OpenChunkFile(const index::DatasetIndex& dataset) {
  return current_opener ? current_opener(dataset.location)
                        : remote::OpenFile(dataset.location, dataset.remote);
}

}  // namespace h5feed::loader
