#include "sources/segmentation_source.h"

#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "byte_size.h"
#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "image/png_mask_decoder.h"
#include "make_error.h"
#include "sources/placed_fields.h"
#include "sources/read_file.h"
#include "sources/segmentation_pairs.h"

namespace h5feed::converters {
namespace {

// A PNG's IHDR chunk ends at byte 33: the first bytes of a mask are enough for its header.
constexpr int64_t kMaskHeaderBytes = 64;

// What the headers say of a pair, read at open.
struct PairHeaders {
  image::Size image;       // 0 x 0: unreadable (its Read reports the decode error)
  image::MaskHeader mask;  // valid when `problem` is empty
  std::string problem;     // why the pair is skipped; empty: it is not
};

PairHeaders ReadHeaders(const SegmentationListing& listing, const SegmentationPair& pair,
                        const FittedImages& images) {
  PairHeaders headers;
  const std::string image_path = listing.images_root + "/" + pair.image;
  try {
    headers.image = images.ReadSize(image_path);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt) throw;
  }
  if (pair.mask.empty()) {
    headers.problem = fmt::format("no mask in {} has this image's name (looked for {}{}.png)",
                                  listing.masks_root, pair.key, listing.mask_suffix);
    return headers;
  }
  const std::string mask_path = listing.masks_root + "/" + pair.mask;
  try {
    std::vector<uint8_t> bytes;
    ReadFileInto(mask_path, bytes, kMaskHeaderBytes);
    headers.mask = image::ReadPngMaskHeader(bytes, mask_path);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt) throw;
    headers.problem = e.what();
    return headers;
  }
  const image::Size& size = headers.image;
  if (size.height > 0 && (size.height != headers.mask.height || size.width != headers.mask.width)) {
    headers.problem = fmt::format(
        "its mask {} is {}x{} (HxW) but the image is {}x{}: a mask "
        "holds one class id per pixel of its image",
        pair.mask, headers.mask.height, headers.mask.width, size.height, size.width);
  }
  return headers;
}

class SegmentationSource final : public SampleSource {
 public:
  SegmentationSource(SegmentationListing listing, std::vector<PairHeaders> headers,
                     std::unique_ptr<FittedImages> images, FieldSpec mask, ImageShape shape)
      : listing_(std::move(listing)),
        headers_(std::move(headers)),
        images_(std::move(images)),
        fields_{std::move(mask)},
        shape_(shape) {}

  std::string_view kind() const override { return "segmentation"; }
  int64_t count() const override { return static_cast<int64_t>(listing_.pairs.size()); }
  ImageShape shape() const override { return shape_; }
  std::vector<std::string> classes() const override { return {}; }
  std::vector<FieldSpec> fields() const override { return fields_; }
  bool labelled() const override { return false; }
  bool own_size() const override { return images_->own_size(); }
  int64_t max_side() const override { return images_->max_side(); }
  std::string name(int64_t i) const override {
    return listing_.pairs[static_cast<size_t>(i)].image;
  }
  MemoryBudget* memory_budget() const override { return &images_->budget(); }

  std::vector<std::string> notes() const override {
    if (listing_.masks_without_image == 0) return {};
    return {fmt::format("{} mask(s) in {} pair with no image (e.g. {}): not converted",
                        listing_.masks_without_image, listing_.masks_root,
                        listing_.mask_without_image)};
  }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    const SegmentationPair& pair = listing_.pairs[static_cast<size_t>(i)];
    const PairHeaders& headers = headers_[static_cast<size_t>(i)];
    if (!headers.problem.empty()) throw Error(ErrorCode::kCorrupt, headers.problem);
    const std::string image_path = listing_.images_root + "/" + pair.image;
    // An unreadable header at open: reading it again throws its reason.
    const image::Size source =
        headers.image.height > 0 ? headers.image : images_->ReadSize(image_path);
    // The image first: its decode's lease is given back before the mask's is asked for, and
    // a thread that waits for memory while holding some could wait for its own.
    const image::Size stored = images_->Read(image_path, dest);
    const MemoryBudget::Lease lease = LeaseForMask(pair, headers.mask, source, stored);
    std::vector<std::vector<uint8_t>> values(1);
    values[0] = DecodeMask(pair, headers.mask);
    PlaceGeometricFields(pair.image, fields_, source, stored, images_->mode(), images_->mask_fill(),
                         values);
    return {0, pair.image, std::move(values)};
  }

 private:
  // The memory a mask takes while it is decoded and placed, lent by the conversion's budget
  // (--memory-limit) as an image's decode is: its file, its values at the source's size and
  // the field's type (and as decoded, when widened), the copy that placing them may read from,
  // and the values at the stored size. A 6000 x 6000 uint16 mask is 72 MB, and every thread
  // decodes one at once.
  MemoryBudget::Lease LeaseForMask(const SegmentationPair& pair, const image::MaskHeader& header,
                                   image::Size source, image::Size stored) const {
    const std::string path = listing_.masks_root + "/" + pair.mask;
    std::error_code error;
    const auto file = static_cast<int64_t>(std::filesystem::file_size(path, error));
    const int64_t value_bytes = static_cast<int64_t>(ElementBytes(fields_[0].type));
    // An 8-bit mask of a uint16 field is decoded, then widened beside itself.
    const int64_t values = int64_t{header.height} * header.width *
                           (value_bytes + (value_bytes > header.value_bytes ? 1 : 0));
    const bool moved = source.height != stored.height || source.width != stored.width;
    const int64_t placed = moved ? MaskCopyBytes(fields_[0].type, source) +
                                       int64_t{stored.height} * stored.width * value_bytes
                                 : 0;
    const int64_t needed = (error ? 0 : file) + values + placed;
    MemoryBudget& budget = images_->budget();
    if (!budget.fits(needed)) {
      const std::string option = NameOption(images_->option_names(), "ConvertOptions", "memory");
      throw MakeError(ErrorCode::kCorrupt,
                      "refused mask '{}': decoding it needs {} ({} x {} values), more than the "
                      "{} that {} {} leaves for decoding; raise {} to convert it",
                      path, ByteSize(needed), header.height, header.width,
                      ByteSize(budget.lendable()), option, ByteSize(budget.limit()), option);
    }
    return budget.Acquire(needed, [this] { images_->ReleaseIdle(); });
  }

  // The mask's values as the field's type (little-endian, as host order is on the machines
  // h5feed builds for: the Writer and the format say little-endian).
  std::vector<uint8_t> DecodeMask(const SegmentationPair& pair,
                                  const image::MaskHeader& header) const {
    const std::string path = listing_.masks_root + "/" + pair.mask;
    std::vector<uint8_t> file;
    ReadFileInto(path, file);
    std::vector<uint8_t> mask(static_cast<size_t>(header.bytes()));
    image::DecodePngMask(file, header, path, mask);
    if (fields_[0].type == FieldType::kUint16 && header.value_bytes == 1) {
      std::vector<uint8_t> wide(2 * mask.size());
      for (size_t p = 0; p < mask.size(); ++p) {
        const uint16_t value = mask[p];
        std::memcpy(&wide[2 * p], &value, 2);
      }
      return wide;
    }
    return mask;
  }

  SegmentationListing listing_;
  std::vector<PairHeaders> headers_;
  std::unique_ptr<FittedImages> images_;
  std::vector<FieldSpec> fields_;  // the one mask field
  ImageShape shape_;
};

}  // namespace

std::unique_ptr<SampleSource> OpenSegmentation(const std::string& images_root,
                                               const std::string& masks_root,
                                               const SegmentationOptions& options) {
  auto images = std::make_unique<FittedImages>(options.fit);
  SegmentationListing listing = ListSegmentationPairs(
      images_root, masks_root, options.image_suffix, options.mask_suffix, options.fit.option_names);
  if (!options.image_list.empty()) KeepListed(listing, options.image_list);
  std::vector<PairHeaders> headers(listing.pairs.size());
  tbb::task_arena arena(images->threads() > 0 ? images->threads() : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, headers.size(), [&](size_t i) {
      headers[i] = ReadHeaders(listing, listing.pairs[i], *images);
    });
  });
  images->ReleaseIdle();
  std::vector<image::Size> usable;
  bool wide = false;
  for (const PairHeaders& pair : headers) {
    if (!pair.problem.empty()) continue;
    usable.push_back(pair.image);
    wide = wide || pair.mask.value_bytes == 2;
  }
  const ImageShape shape = images->Shape(usable, images_root + " with a mask in " + masks_root);
  FieldSpec mask{"mask", FieldKind::kMask, wide ? FieldType::kUint16 : FieldType::kUint8, {}, {}};
  if (!images->own_size()) mask.shape = {shape.height, shape.width};
  return std::make_unique<SegmentationSource>(std::move(listing), std::move(headers),
                                              std::move(images), std::move(mask), shape);
}

}  // namespace h5feed::converters
