#pragma once
// How the chunks of /images are compressed on disk.

#include <string>
#include <string_view>

namespace h5feed {

struct Compression {
  enum class Kind {
    kNone,     // raw chunks: fastest to read when the disk or page cache is fast
    kZstd,     // HDF5 filter 32015, one zstd frame per chunk; the default
    kDeflate,  // HDF5's built-in gzip filter: readable by any HDF5 program with nothing extra
  };
  Kind kind = Kind::kZstd;
  // zstd: 1 (fastest) to 22 (smallest), 3 by default (zstd's own); 20-22 are zstd's "ultra"
  // levels, which need much more memory to compress. zstd decompresses about as fast whatever
  // the level, so a higher one costs the writer only. deflate: 1 to 9 (6 by default, zlib's).
  // Parse and the Writer refuse any other level; ignored for kNone.
  int level = 3;

  // Parses "none", "zstd", "zstd:LEVEL", "gzip", "gzip:LEVEL" ("deflate" is a synonym of gzip).
  // Throws Error(kInvalidArgument) naming the accepted forms. A parser of the struct, not of
  // an enum: the text is a kind and a level whose range depends on the kind. The kind's words
  // are Kind's table, the one every enum's words come from (lib/enum_names.h); only the level
  // is read here, and a refusal lists each kind with its levels.
  static Compression Parse(std::string_view text);
  // The inverse of Parse: "none", "zstd:3", "gzip:6".
  std::string ToString() const;

  friend bool operator==(const Compression&, const Compression&) = default;
};

}  // namespace h5feed
