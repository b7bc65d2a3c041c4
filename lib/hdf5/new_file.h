#pragma once
// A new HDF5 file that h5feed writes (the Writer's temporary file): created, and asked where
// HDF5's next allocation in it goes, so that disk space can be reserved before HDF5 writes
// (io/disk_reservation.h). Call under hdf5::Lock() with errors silenced.

#include <cstdint>
#include <string>
#include <string_view>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// Creates `path`, which must not exist, without modification times (untimed_creation.h). The
// default (earliest) object formats on purpose: HDF5 1.10.8 then indexes the chunks of an
// extendible dataset with a version-1 B-tree, which it walks several times faster than the
// latest format's extensible array (docs/format.md, "HDF5 file-format level"). File locks where
// the file system has them, none where it does not (NFS, Lustre). Every object of a page or
// more (each chunk but the tiniest) starts on a 4 KiB boundary, so a reader with O_DIRECT reads
// a chunk where it lies, with no aligned range around it (io/aligned_buffer.h,
// LoaderOptions::direct). HDF5 keeps no freed section smaller than that page (the gaps the
// alignment leaves) and no block for small raw data, so every chunk takes the space at the end
// of the file, where the writer finds it without walking the chunk index
// (direct_chunk.h, LocateNewChunk); recording that setting takes superblock version 2. Throws
// Error:
// kAlreadyExists when `path` exists; else kIo (or kNoSpace) "WHAT failed for PATH" with HDF5's
// reason.
File CreateNewFile(const std::string& path, std::string_view what);

// HDF5's end of allocation in `file` (H5Fget_eoa): where its next allocation starts, and the
// file's size once HDF5 has written all it allocated. Throws Error(kIo) "finding the end of
// the file failed for PATH".
uint64_t AllocatedEnd(hid_t file, const std::string& path);

}  // namespace h5feed::hdf5
