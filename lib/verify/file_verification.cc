// VerifyFile (h5feed/verify.h): the file opened and indexed as the Loader opens it, then
// checked: its metadata (metadata_verification.h), its fields (field_verification.h) and its
// chunks (chunk_verification.h). The
// report lists one entry per bad chunk, in chunk order, and the bad images in row order.

#include "h5feed/verify.h"

#include <algorithm>
#include <string>
#include <vector>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "index/dataset_index.h"
#include "make_error.h"
#include "verify/chunk_verification.h"
#include "verify/field_verification.h"
#include "verify/metadata_verification.h"

namespace h5feed::verify {
namespace {

using index::DatasetIndex;
using index::IndexOptions;

// Whether the file says it is an h5feed file (its format attribute). Asked only when indexing
// found a dataset missing: that is damage in an h5feed file, whose writer made every dataset,
// but only "not an image file" in an HDF5 file of something else (a foreign file with no
// uint8 image dataset), which is not judged, as a file with float32 images is not.
bool SaysItIsH5feed(const Location& location, FileLocking locking) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(location, locking);
  return hdf5::HasAttribute(opened.file.get(), format::schema::kAttrFormat);
}

VerificationReport Verify(const std::string& path, const VerifyOptions& options) {
  VerificationReport report;
  report.path = Location(path).display();
  IndexOptions index_options;
  index_options.verify_table_entries = 0;  // CheckH5feedMetadata compares every row
  index_options.file_locking = options.file_locking;
  index_options.check_labels = false;  // CheckLabels lists every bad label
  index_options.remote = options.remote;
  index_options.images = options.images_dataset;
  // A missing file, a remote object that is missing or refused (404, 403) and a file that is
  // not HDF5 at all (a text file) are not damage: nothing of an HDF5 file to judge, so thrown,
  // as inspect and the Loader throw it.
  {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    hdf5::CheckHdf5Start(Location(path, options.remote));
  }
  DatasetIndex index;
  try {
    index = index::OpenDatasetIndex(path, index_options);
  } catch (const Error& e) {
    // What HDF5 cannot read (kCorrupt), and a dataset an h5feed file lacks (kNotFound), are
    // damage. Anything else leaves the file unjudged, thrown as inspect and the Loader throw
    // it: an I/O failure, a newer format, and a foreign file that holds no images.
    const bool damaged = e.code() == ErrorCode::kCorrupt ||
                         (e.code() == ErrorCode::kNotFound &&
                          SaysItIsH5feed(Location(path, options.remote), options.file_locking));
    if (!damaged) throw;
    report.problems.push_back(e.what());
    report.not_checked.push_back("chunks, labels and counts: the file could not be indexed");
    return report;
  }
  report.indexed = true;
  report.is_h5feed = index.is_h5feed;
  report.samples = index.samples;
  report.chunks = index.chunk_count();
  report.chunk_samples = index.chunk_samples;
  report.read_path = index::ToString(index.read_path);
  report.warnings = index.warnings;
  report.own_size = index.stored_layout == StoredLayout::kFlat;
  for (int e = 0; e < RowLocator::kEncodings; ++e) {
    const auto encoding = static_cast<ImageEncoding>(e);
    report.encodings.Add(encoding, index.rows.count(encoding));
  }
  if (index.is_h5feed) {
    CheckH5feedMetadata(index, index.file_locking, report);
  } else {
    report.not_checked.push_back(
        "chunk table and format attributes: the file was not written by h5feed (it has "
        "neither); HDF5's own chunk index is used as it is");
  }
  CheckLabels(index, report);
  CheckFields(index, report);
  CheckChunks(index, options, report);
  // One entry per chunk: a chunk the table misplaces usually fails its checksum as well.
  std::vector<ChunkProblem>& bad = report.bad_chunks;
  std::stable_sort(bad.begin(), bad.end(),
                   [](const ChunkProblem& a, const ChunkProblem& b) { return a.chunk < b.chunk; });
  std::vector<ChunkProblem> merged;
  for (ChunkProblem& p : bad) {
    if (!merged.empty() && merged.back().chunk == p.chunk) {
      merged.back().problem += "; " + p.problem;
    } else {
      merged.push_back(std::move(p));
    }
  }
  bad = std::move(merged);
  std::sort(report.bad_images.begin(), report.bad_images.end(),
            [](const ImageProblem& a, const ImageProblem& b) { return a.row < b.row; });
  if (index.is_h5feed) NameBadImageSources(index, index.file_locking, report);
  return report;
}

}  // namespace
}  // namespace h5feed::verify

namespace h5feed {

VerificationReport VerifyFile(const std::string& path, const VerifyOptions& options) {
  return verify::Verify(path, options);
}

}  // namespace h5feed
