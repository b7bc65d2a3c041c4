#pragma once
// The `checksum` attribute of /chunk_index and /row_checksums, which names the hash their
// values are (docs/format.md, "Checksums"). A reader must not check against a name it does not
// know. Call under hdf5::Lock().

#include <hdf5.h>

#include <string>

namespace h5feed::format {

// Writes checksum = "xxh3-64" on `dataset`. Throws Error (kIo) naming the file.
void WriteChecksumAttribute(hid_t dataset);

// Throws Error kUnsupported, naming `where` (e.g. "dataset /chunk_index in f.h5"), when the
// attribute names another hash.
void RequireKnownChecksum(hid_t dataset, const std::string& where);

}  // namespace h5feed::format
