#pragma once
// One libjpeg decompressor, and the error handling that turns its failures into h5feed::Error.
// Private to decode/: the only header of the module that includes libjpeg's.
//
// libjpeg reports a failure by calling the error manager's error_exit, which must not return,
// so the caller has to longjmp out of libjpeg. In C++ that is safe only when no object with a
// destructor lives in the frames the jump leaves: every libjpeg call therefore runs inside a
// small "guarded" function (jpeg_decompressor.cc, jpeg_region_decoder.cc) that calls setjmp,
// holds only plain values, and returns false when the trap fired; its caller then throws.

#include <csetjmp>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs FILE and size_t declared first
#include <span>
#include <string>

#include <jpeglib.h>

#include "decode/jpeg_info.h"

namespace h5feed::decode {

// Where libjpeg's error_exit and warnings jump to, with the message of the failure. Stored
// images are checksummed, so any warning (premature end of data, a corrupt Huffman code) means
// damage: warnings jump here too instead of decoding on with gray.
struct JpegErrorTrap {
  jpeg_error_mgr manager;  // first member: libjpeg's callbacks get a pointer to it
  jpeg_progress_mgr progress;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

// Owns a jpeg_decompress_struct (its libjpeg state, tens of KiB, reused image after image)
// with its trap. Not thread-safe; neither copyable nor movable (libjpeg keeps pointers into it).
class JpegDecompressor {
 public:
  JpegDecompressor();
  JpegDecompressor(const JpegDecompressor&) = delete;
  JpegDecompressor& operator=(const JpegDecompressor&) = delete;
  ~JpegDecompressor();

  jpeg_decompress_struct* cinfo() { return &cinfo_; }
  JpegErrorTrap* trap() { return &trap_; }

  // Reads `jpeg`'s header (jpeg must outlive the decoding that follows) and says what it holds.
  // Nothing is allocated for pixels. Throws Error(kCorrupt), after Abort, for bytes that are
  // not a JPEG, a truncated header, or what h5feed does not deliver (see JpegInfo).
  JpegInfo ReadHeader(std::span<const uint8_t> jpeg);

  // Ends the image wherever it stands (after an error too): its memory is freed and the
  // decompressor is ready for the next one.
  void Abort();

  // Abort, then throw Error(kCorrupt) with the trapped libjpeg message.
  [[noreturn]] void FailWithTrappedMessage();
  // Abort, then throw Error(kCorrupt, message).
  [[noreturn]] void Fail(const std::string& message);

 private:
  JpegErrorTrap trap_;
  jpeg_decompress_struct cinfo_;
};

}  // namespace h5feed::decode
