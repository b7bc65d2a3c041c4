#pragma once
// What asking for bytes ahead of their read found: the one answer of a remote file's and a
// local file's PrefetchAt (remote/remote_file.h, io/local_file.h) and of a chunk source's
// read-ahead (source/read_ahead.h), which passes it on.

namespace h5feed::io {

enum class Ahead {
  kStarted,    // the bytes are on their way
  kHeld,       // they are here or on their way already
  kFull,       // as many bytes are held ahead as the medium needs: ask again later
  kNotNeeded,  // nothing to fetch for them (read directly, or outside the file: its read says)
};

}  // namespace h5feed::io
