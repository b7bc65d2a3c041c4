// Writer (h5feed/writer.h): the options checked and the temporary file created (Create),
// chunks encoded (Encode*) and appended in order (Append: images_dataset.cc writes them), then
// the rest of the file, attributes last, and the rename (Finish), or the temporary file removed
// (Abandon). docs/format.md specifies the result.

#include "h5feed/writer.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "format/chunk_encoding.h"
#include "format/chunk_index_dataset.h"
#include "format/description_datasets.h"
#include "format/field_writer.h"
#include "format/image_records_datasets.h"
#include "format/partial_file.h"
#include "format/require.h"
#include "format/row_checksums_dataset.h"
#include "format/schema.h"
#include "format/stored_image_check.h"
#include "format/writer_state.h"
#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "h5feed/remote_options.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "make_error.h"

namespace h5feed {
namespace {

// What an existing output that is neither a regular file, a folder nor a link is.
const char* SpecialFileKind(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "a special file";
  }
}

}  // namespace

int64_t DefaultChunkImages(const ImageShape& shape, int64_t images) {
  if (shape.bytes() <= 0) return 1;
  const int64_t about_4_mib = (kDefaultChunkBytes + shape.bytes() / 2) / shape.bytes();
  return std::max<int64_t>(1, std::min(about_4_mib, images));
}

void Writer::CheckOutput(const std::string& path, const WriterOptions& options) {
  namespace fs = std::filesystem;
  format::Require(!path.empty(), "the output path is empty");
  // A URL would otherwise be taken for a relative path whose folder ("https://host") is missing.
  format::Require(!IsRemoteLocation(path),
                  "the output {} is a URL, and h5feed writes to a local path only (a disk, or a "
                  "mounted network file system): write the file here, then upload it",
                  DisplayLocation(path));
  std::string folder = format::FolderOf(path);
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw MakeError(ErrorCode::kNotFound,
                    "the folder {} of the output {} does not exist; create it first", folder, path);
  }
  if (fs::is_directory(path, error)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the output {} is a folder; give the path of an .h5 file", path);
  }
  // Replacing renames a new file onto `path`: a device or a FIFO there (/dev/null given as the
  // output) would become a regular file, as root even in /dev. A symbolic link is replaced
  // itself, never what it points to.
  const fs::file_status existing = fs::symlink_status(path, error);
  if (fs::exists(existing) && !fs::is_regular_file(existing) && !fs::is_symlink(existing)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is {}, not a regular file, and is never replaced (not even with {}); "
                    "give the path of an .h5 file",
                    path, SpecialFileKind(existing.type()),
                    NameOption(options.option_names, "WriterOptions", "overwrite"));
  }
  if (fs::exists(existing) && !options.overwrite) {
    throw MakeError(ErrorCode::kAlreadyExists,
                    "{} already exists and is left as it is; remove it or allow overwriting ({})",
                    path, NameOption(options.option_names, "WriterOptions", "overwrite"));
  }
}

Writer Writer::Create(const std::string& path, const WriterOptions& options) {
  const ImageShape& shape = options.image_shape;
  format::ValidateCompression(options.compression);
  int64_t chunk_images = 0;
  int64_t chunk_bytes = 0;
  std::optional<FlatLayout> flat = options.flat;
  if (flat) {
    if (flat->chunk_bytes == 0) flat->chunk_bytes = kDefaultChunkBytes;
    format::Require(
        flat->chunk_bytes > 0 && flat->chunk_bytes < kMaxChunkBytes,
        "chunk_bytes {} is not 1 byte to 4 GiB less a byte (HDF5 cannot store larger chunks)",
        flat->chunk_bytes);
    format::Require(flat->max_side >= 0, "max_side must be 0 (no cap) or positive, got {}",
                    flat->max_side);
    format::Require(flat->smart_threshold >= 0, "smart_threshold must be 0 or more bytes, got {}",
                    flat->smart_threshold);
    format::Require(flat->encoding.kind == StoredEncoding::Kind::kRaw ||
                        (flat->encoding.quality >= 1 && flat->encoding.quality <= 100),
                    "JPEG quality {} is out of range 1-100", flat->encoding.quality);
    chunk_bytes = flat->chunk_bytes;
  } else {
    format::Require(shape.height > 0 && shape.width > 0 && shape.channels > 0,
                    "image shape {}x{}x{} is not positive in every dimension", shape.height,
                    shape.width, shape.channels);
    format::Require(options.chunk_images >= 0,
                    "images per chunk must be positive (or 0 for the default), got {}",
                    options.chunk_images);
    chunk_images = options.chunk_images > 0 ? options.chunk_images : DefaultChunkImages(shape);
    format::Require(
        shape.bytes() <= kMaxChunkBytes / chunk_images,
        "{} images of {} bytes make a chunk of 4 GiB or more, which HDF5 cannot store; use fewer "
        "images per chunk",
        chunk_images, shape.bytes());
    chunk_bytes = chunk_images * shape.bytes();
  }
  format::CheckFields(options.fields, chunk_images);
  for (const FieldSpec& spec : options.fields) {
    format::Require(spec.kind != FieldKind::kMask || flat ||
                        spec.shape == std::vector<int64_t>{shape.height, shape.width},
                    "mask field {} is {}; a mask has the images' height and width ({}x{})",
                    spec.name, spec.Describe(), shape.height, shape.width);
  }

  CheckOutput(path, options);
  format::RemoveStalePartials(path);

  auto state = std::make_unique<State>();
  state->path = path;
  state->temporary_path = format::PartialPath(path, getpid());
  state->shape = flat ? ImageShape{} : shape;
  state->chunk_images = chunk_images;
  state->chunk_bytes = chunk_bytes;
  state->flat = flat;
  state->compression = options.compression;
  state->overwrite = options.overwrite;
  state->overwrite_option = NameOption(options.option_names, "WriterOptions", "overwrite");
  state->labelled = options.labelled;
  state->fields = format::FieldWriter(options.fields, chunk_images, options.compression, path,
                                      state->temporary_path, options.box_coordinates);
  Writer writer(std::move(state));  // from here on, a failure removes the temporary file
  writer.state_->CreateImagesDataset();
  return writer;
}

Writer::Writer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&& other) noexcept {
  if (this != &other) {
    Abandon();
    state_ = std::move(other.state_);
  }
  return *this;
}
Writer::~Writer() { Abandon(); }

int64_t Writer::chunk_images() const { return state_->chunk_images; }
bool Writer::flat() const { return state_->flat.has_value(); }
int64_t Writer::chunk_bytes() const { return state_->chunk_bytes; }
const ImageShape& Writer::image_shape() const { return state_->shape; }
const std::string& Writer::path() const { return state_->path; }
const std::string& Writer::temporary_path() const { return state_->temporary_path; }
int64_t Writer::images_written() const { return state_->images_written; }
int64_t Writer::chunks_written() const { return static_cast<int64_t>(state_->chunks.size()); }
int64_t Writer::field_rows_written() const { return state_->fields.rows(); }

EncodedChunk Writer::Encode(std::span<const uint8_t> pixels, int64_t images) const {
  std::vector<uint8_t> chunk(pixels.begin(), pixels.end());
  EncodedChunk encoded;
  EncodeInto(chunk, images, encoded);
  // A compressed chunk keeps only its bytes while it waits to be appended.
  encoded.bytes.shrink_to_fit();
  return encoded;
}

void Writer::EncodeInto(std::vector<uint8_t>& chunk, int64_t images, EncodedChunk& into) const {
  const State& s = *state_;
  format::Require(
      !s.flat,
      "Encode of {}: a file of images at their own size takes packed chunks (EncodePackedInto)",
      s.path);
  format::EncodeChunk(chunk, images, s.chunk_images, s.shape.bytes(), s.compression, into);
}

void Writer::EncodePackedInto(std::vector<uint8_t>& chunk, std::vector<StoredImage> images,
                              EncodedChunk& into) const {
  const State& s = *state_;
  format::Require(
      s.flat.has_value(),
      "EncodePackedInto of {}: a file of images at one size takes chunks of K images (Encode, "
      "EncodeInto)",
      s.path);
  for (const StoredImage& image : images) format::CheckStoredImage(image, *s.flat, s.chunk_bytes);
  format::EncodePackedChunk(chunk, std::move(images), s.chunk_bytes, s.compression, into);
}

void Writer::Append(const EncodedChunk& chunk) {
  State& s = *state_;
  s.CheckUsable("Append()");
  try {
    if (s.flat) {
      s.AppendPacked(chunk);
    } else {
      s.AppendImages(chunk);
    }
  } catch (const Error& e) {
    // A chunk the caller got wrong leaves the file as it was; anything else may not.
    if (e.code() != ErrorCode::kInvalidArgument) s.failed = true;
    throw;
  } catch (...) {
    s.failed = true;
    throw;
  }
}

void Writer::AppendFields(std::span<const FieldColumn> columns) {
  State& s = *state_;
  s.CheckUsable("AppendFields()");
  try {
    // The size each row's image is stored at, for the check of its boxes: a version 1 file's
    // one, a flat file's own for the images appended so far.
    const format::ImageSizeFunction image_size =
        [&s](int64_t row) -> std::optional<std::pair<int64_t, int64_t>> {
      if (!s.flat) return std::pair<int64_t, int64_t>{s.shape.height, s.shape.width};
      if (row >= static_cast<int64_t>(s.stored.size())) return std::nullopt;
      const StoredImage& image = s.stored[static_cast<size_t>(row)];
      return std::pair<int64_t, int64_t>{image.height, image.width};
    };
    s.fields.Append(columns, s.file.get(), s.Reserve(), image_size);
  } catch (const Error& e) {
    // Columns the caller got wrong are refused before anything is written.
    if (e.code() != ErrorCode::kInvalidArgument) s.failed = true;
    throw;
  } catch (...) {
    s.failed = true;
    throw;
  }
}

void Writer::State::WriteEverythingButPixels(const DatasetDescription& d) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hid_t root = file.get();
  ReserveBeyondEnd(format::DescriptionBytes(d, chunks.size()) +
                       (flat ? format::ImageRecordBytes(stored.size()) : 0),
                   "writing labels, sources and the chunk table");
  format::WriteDescriptionDatasets(root, d, labelled);
  format::WriteChunkIndex(root, chunks);
  if (flat) {
    format::WriteImageRecords(root, stored, offsets);
    image_checksums.clear();
    for (const StoredImage& image : stored) image_checksums.push_back(image.checksum);
  }
  format::WriteRowChecksums(root, image_checksums);
  if (!images.close()) {
    throw hdf5::StackError(ErrorCode::kIo, "closing /images", temporary_path);
  }
  fields.Finish(root, images_written, Reserve());
  format::WriteRootAttributes(root, d, {images_written, chunk_images, compression, flat, labelled});

  // H5Fclose flushes HDF5's metadata cache: a full disk often shows here, not earlier.
  if (!file.close()) {
    throw hdf5::StackError(ErrorCode::kIo, "closing (flushing)", temporary_path);
  }
}

void Writer::Finish(const DatasetDescription& description) {
  State& s = *state_;
  s.CheckUsable("Finish()");
  const size_t n = static_cast<size_t>(s.images_written);
  if (s.labelled) {
    format::Require(description.labels.size() == n,
                    "{} labels for {} images written to {}; give one label per image",
                    description.labels.size(), n, s.path);
  } else {
    format::Require(description.labels.empty() && description.classes.empty(),
                    "{} labels and {} classes for {}, written without labels "
                    "(WriterOptions::labelled is false); give none",
                    description.labels.size(), description.classes.size(), s.path);
  }
  format::Require(s.fields.fields().empty() || s.fields.rows() == s.images_written,
                  "the fields of {} got {} rows for {} images written; give every field one "
                  "row per image (AppendFields)",
                  s.path, s.fields.rows(), s.images_written);
  format::Require(description.box_classes.names.size() == description.box_classes.source_ids.size(),
                  "{} box class names but {} source ids for {}; give one id per name",
                  description.box_classes.names.size(), description.box_classes.source_ids.size(),
                  s.path);
  format::Require(description.sources.size() == n,
                  "{} sources for {} images written to {}; give one source per image",
                  description.sources.size(), n, s.path);
  if (!description.classes.empty()) {
    const int64_t classes = static_cast<int64_t>(description.classes.size());
    for (size_t i = 0; i < n; ++i) {
      const int64_t label = description.labels[i];
      format::Require(label >= 0 && label < classes,
                      "label {} of image {} ({}) names no class: there are {} classes", label, i,
                      description.sources[i], classes);
    }
  }
  try {
    s.WriteEverythingButPixels(description);
    s.disk->ReleaseUnused();
    s.disk.reset();
    s.writeback.reset();
    format::SyncFile(s.temporary_path);
    format::RenameIntoPlace(s.temporary_path, s.path, s.overwrite, s.overwrite_option);
  } catch (...) {
    s.failed = true;
    throw;
  }
  s.finished = true;
  // The file is complete under its name; a failure here only means the rename may not yet
  // be durable across a power cut.
  format::SyncFolder(format::FolderOf(s.path));
}

void Writer::Abandon() noexcept {
  if (!state_ || state_->finished || state_->removed) return;
  State& s = *state_;
  // Unlink before closing: a kill between the two then leaves no file behind.
  unlink(s.temporary_path.c_str());
  s.removed = true;
  s.failed = true;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  s.images.reset();
  s.fields.Close();
  // Succeeds after any failure h5feed reported itself (a full disk is found by the
  // reservation, before HDF5 writes); see disk_reservation.h for the one case that does not.
  s.file.reset();
  s.disk.reset();
  s.writeback.reset();
}

}  // namespace h5feed
