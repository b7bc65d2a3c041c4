#pragma once
// Reads the image files of an image folder within a memory budget (memory_budget.h): the
// header alone for the size check, or the whole image, decoded and fitted to the stored size.
//
// Before anything is allocated for an image, what it will cost is leased from the budget: the
// file, the decoded pixels, the decoders' and the resize's scratch (DecodePlan::scratch_bytes).
// Dimensions therefore never decide how much memory a conversion takes, only how many images
// decode at once:
//   - a PNG whose decoded image would be large is decoded row by row into the resize
//     (image::DecodeRows, image::RowResizer), in memory proportional to its width;
//   - a JPEG decodes at the smallest DCT scale the stored size allows;
//   - anything else is decoded whole once the budget can lend that much, alone if need be;
//   - an image the budget can never lend enough for, or with more pixels than `max_pixels`
//     (a decompression bomb), is refused: Error(kCorrupt), which the conversion records and
//     skips like a broken file.
//
// Thread-safety: every member may be called from many threads at once. Each call borrows a
// Scratch (buffers, and the lease that pays for them) from a pool, so buffers are reused from
// one image to the next; an idle Scratch keeps at most kKeptScratchBytes, and gives everything
// back when another call waits for memory.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "image/image_decoder.h"
#include "image/resize.h"
#include "memory_budget.h"

namespace h5feed::converters {

// PIL's limit: Image.open raises DecompressionBombError above 2 x Image.MAX_IMAGE_PIXELS
// (89,478,485) pixels, so h5feed converts exactly the images PIL opens.
inline constexpr int64_t kDefaultMaxPixels = 2 * int64_t{89'478'485};

// Throws Error(kInvalidArgument) for a negative `max_pixels` (ImageFileReader's) or
// `max_side` (ReadAtOwnSize's cap), named as the options that set them: --max-pixels, --max-side.
void CheckImageLimits(int64_t max_pixels, int64_t max_side);

class ImageFileReader {
 public:
  // `budget` must outlive the reader. max_pixels: 0 = no limit (the decoders' own caps remain:
  // 65535 pixels a side, 2 GiB decoded).
  ImageFileReader(MemoryBudget& budget, int64_t max_pixels);
  ~ImageFileReader();
  ImageFileReader(const ImageFileReader&) = delete;
  ImageFileReader& operator=(const ImageFileReader&) = delete;

  // The size the file's header declares. Throws Error(kCorrupt) when it is unreadable, or
  // over max_pixels.
  image::Size ReadSize(const std::string& path) const;

  // Decodes `path` into `dest` (target.height x target.width RGB), fitted to `target` by
  // `mode`; without a mode the image must have exactly that size (else Error(kCorrupt): its
  // decode error if it does not decode, "changed size" if it does). Throws Error(kCorrupt) for a
  // broken or refused file.
  void Read(const std::string& path, image::Size target, std::optional<image::ResizeMode> mode,
            std::span<uint8_t> dest) const;

  // Decodes `path` at its own size, its longer side capped at `max_side` (image::CappedSize;
  // 0 = no cap): an image within the cap exactly as decoded, a larger one shrunk by area
  // averaging (from a reduced JPEG DCT scale where that loses nothing, as Read does). Calls
  // `dest` once with the stored size, before the pixels are decoded, for the memory to decode
  // into (height x width RGB). Throws Error(kCorrupt) for a broken or refused file.
  using Destination = std::function<std::span<uint8_t>(image::Size)>;
  void ReadAtOwnSize(const std::string& path, int max_side, const Destination& dest) const;

  // The encoded bytes of an image that is not a file of its own (an element of an HDF5
  // dataset). Called with `place`, a Fetch asks it once for memory for the image's bytes
  // (their number) and fills what it returns; `place` returns nullptr when that memory cannot
  // be had without waiting, and the Fetch then returns false, having read nothing, to be
  // called again once the memory is there: a Fetch that holds a lock (HDF5's) never waits for
  // memory under it. Throws Error(kCorrupt) for bytes that cannot be read.
  using Place = std::function<uint8_t*(int64_t bytes)>;
  using Fetch = std::function<bool(const Place& place)>;
  // As the path versions, for the image `fetch` reads, named `name` in messages: its bytes are
  // held (and paid for) like a file's.
  image::Size ReadSize(const std::string& name, const Fetch& fetch) const;
  void ReadAtOwnSize(const std::string& name, const Fetch& fetch, int max_side,
                     const Destination& dest) const;
  // Decodes the image `fetch` reads into `dest`, fitted to `target` by `mode` (as the path
  // version with a mode, DCT scaling included).
  void Read(const std::string& name, const Fetch& fetch, image::Size target, image::ResizeMode mode,
            std::span<uint8_t> dest) const;

  // Decodes `path` and discards the pixels: throws what reading it would throw.
  void CheckDecodes(const std::string& path) const;

  // Gives back the idle scratch buffers and their leases.
  void ReleaseIdle() const;

 private:
  struct Scratch;
  class Borrowed;
  struct Header;

  // The file's size and full-size plan, refusing images over max_pixels_. `to_decode`: the
  // file will be decoded next, so a small one is read whole now.
  Header ReadHeader(const std::string& path, Scratch& scratch, bool to_decode) const;
  // The fetched image's bytes in scratch.encoded, its size and full-size plan, refusing images
  // over max_pixels_.
  Header FetchHeader(const std::string& name, const Fetch& fetch, Scratch& scratch) const;
  // Throws Error(kCorrupt) when `plan` has more pixels than max_pixels_.
  void CheckPixels(const std::string& path, const image::DecodePlan& plan) const;
  // ReadAtOwnSize once the header is read.
  void StoreAtOwnSize(const std::string& path, Scratch& scratch, const Header& header, int max_side,
                      const Destination& dest) const;
  // Leases enough for `file` bytes of file, `decoded` bytes of decoded image and `transient`
  // bytes of decoder and resize scratch, keeping the scratch's buffers when they fit. Throws
  // Error(kCorrupt) when the budget can never lend that much; `why` says how the image was to
  // be decoded, for that message.
  void Cover(Scratch& scratch, const std::string& path, int64_t file, int64_t decoded,
             int64_t transient, const std::string& why) const;
  // The image's bytes in scratch.encoded (read again from the file, or fetched again, when a
  // wait for memory gave them back). The lease must already cover them.
  void ReadWholeFile(const std::string& path, Scratch& scratch, const Header& header) const;
  // Decodes the file whose header is read into `dest`, resized from its full size to `target`
  // by `mode`.
  void DecodeResized(const std::string& path, Scratch& scratch, const Header& header,
                     image::Size target, image::ResizeMode mode, std::span<uint8_t> dest) const;
  void Release(std::unique_ptr<Scratch> scratch) const;

  MemoryBudget& budget_;
  const int64_t max_pixels_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Scratch>> idle_;  // guarded by mutex_
};

}  // namespace h5feed::converters
