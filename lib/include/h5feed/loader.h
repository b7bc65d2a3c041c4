#pragma once
// The reader: shuffled batches from an HDF5 file, as fast as the machine reads and
// decompresses, in bounded memory, the same order on every run with the same seed, resumable
// mid-epoch.
//
//   h5feed::LoaderOptions options;
//   options.batch_size = 256;
//   options.sampler = h5feed::SamplerOptions::Parse("chunks:8");
//   auto loader = h5feed::Loader::Open("train.h5", options);
//   for (int64_t epoch = first_epoch; epoch < epochs; ++epoch) {
//     loader.SetEpoch(epoch);
//     while (auto batch = loader.Next()) {
//       Train(batch->images(), batch->labels());  // uint8 NHWC; normalized_images() if asked
//       if (time_to_checkpoint) Save(loader.State());  // resume: Open, then Restore(state)
//     }
//   }
//
// A loader starts reading when SetEpoch or Restore is called (or at the first Next, epoch 0),
// on its own threads; Next hands batches out in order. Errors met by the workers (a corrupt
// chunk, a failed read) come out of Next in order, after every batch before the failing one,
// as an h5feed::Error whose message names the file, the dataset, the chunk and the step; Next
// then rethrows that error until SetEpoch or Restore, and the loader can be destroyed cleanly.
//
// Memory: cache_bytes for decompressed chunks plus slots x batch bytes (a batch's images,
// labels, indices and array fields, and its float32 images when normalizing), allocated at
// Open, plus the fields asked, read whole at Open.
//
// Thread-safety: a Loader is used from one thread (the trainer's). Batches may be held and
// released on any thread; holding a batch holds its slot, so a trainer holding all `slots`
// batches stalls the loader until it releases one: Next waits 5 s for another thread to
// release one, then throws Error(kInvalidArgument) naming the batches held. Batches stay valid
// after the Loader that made them is destroyed.
//
// Holding what costs what: every span and TensorView of a Batch points into memory the Batch
// holds (its slot, or with the GPU stage its device buffer), so keeping any of them means
// keeping the Batch. What a trainer keeps beyond a step (evaluation targets, the rows it saw)
// it copies: labels() and indices() are 8 bytes a sample, on the host in every case,
//   targets.insert(targets.end(), batch->labels().begin(), batch->labels().end());
// and the batch can go. Masks, boxes and box labels on the host are not the slot's memory:
// field_owner(k, view) keeps one of them alive alone, without the Batch. The Python module
// hands out labels and indices as such copies, the host masks and boxes with their own
// owners, and the images and array fields as views of the loader's buffers.
//
// Fields (LoaderOptions::fields, docs/format.md "Fields"): each asked field, by its position k
// in that list or by name, for every sample of the batch. An array field is a FieldTensor, the
// batch's rows of it one after another, where the images are (on the device with the GPU
// stage; docs/gpu.md, "Fields on the device"); a bytes or text
// field's row i is field_bytes(k, i) or field_text(k, i), read where the loader holds the
// field (nothing is copied for it). All of them live as long as the Batch, as labels() does
// (past the Loader too): copy what you keep beyond it.
//   const int attrs = batch->field_index("attrs");
//   const h5feed::FieldTensor values = batch->field_tensor(attrs);  // uint8, size() x 40
//   std::string caption(batch->field_text(batch->field_index("caption"), 0));
//
// Files without labels (written with WriterOptions::labelled false, for self-supervised
// training): a batch has no labels (labels() is empty, label_tensor() an empty TensorView).

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/image_shape.h"
#include "h5feed/loader_options.h"
#include "h5feed/report_value.h"

namespace h5feed {

// One of a batch's arrays as it lies in memory: enough to wrap it without a copy (DLPack,
// torch.from_blob). Valid while the Batch it came from is held.
struct TensorView {
  const void* data = nullptr;
  ElementType type = ElementType::kUint8;
  int rank = 0;
  std::array<int64_t, 4> shape = {};
  std::array<int64_t, 4> strides = {};  // in elements
  int cuda_device = -1;                 // -1: host memory
};

// An array field of a batch as it lies in memory: shape[0] rows (the batch's samples) of the
// field's shape, row-major and contiguous, little-endian elements of `type` (bool: one byte,
// 0 or 1; float16: IEEE binary16). Valid while the Batch it came from is held.
struct FieldTensor {
  const void* data = nullptr;
  FieldType type = FieldType::kUint8;
  std::vector<int64_t> shape;  // (rows, *the field's shape)
  int cuda_device = -1;        // -1: host memory; else device memory of that CUDA device

  int64_t elements() const;  // the product of shape
};

class Batch {
 public:
  int64_t size() const;  // samples in this batch
  const ImageShape& image_shape() const;
  bool normalized() const;
  // uint8, size() x H x W x C, as stored (what the rows were gathered into); empty for a batch
  // on the GPU (only its normalized images reach the device).
  std::span<const uint8_t> images() const;
  // float32 host images of view `view`, (x / 255 - mean) / std per channel, in output.layout
  // and the delivered size (image_tensor(view) has the shape); empty unless normalized() on
  // the host as float32.
  std::span<const float> normalized_images(int view = 0) const;
  // int64 host arrays, also with the GPU stage (its labels are on the device as well, in
  // label_tensor()); copy them to keep them past the Batch (see "Holding" above). labels() is
  // empty for a file without labels.
  std::span<const int64_t> labels() const;
  std::span<const int64_t> indices() const;  // the dataset row of every sample
  // The views of each sample a batch holds: output.views' count (1 without views).
  int views() const;
  // The images of view `view` (0 .. views() - 1; an empty TensorView for any other) as
  // delivered: uint8 NHWC as stored, or normalized (output.type, output.layout), on the host
  // or, with the GPU stage, on the device; contiguous, shaped N x C x H x W (NCHW) or
  // N x H x W x C (NHWC), H x W the view's delivered size (a crop's, a resize's, or the
  // stored one). Sample i of every view is the same dataset row, whose label is labels()[i].
  TensorView image_tensor(int view = 0) const;
  // int64 [size()], on the device with the images; an empty TensorView (rank 0, no data) for a
  // file without labels.
  TensorView label_tensor() const;
  TensorView index_tensor() const;  // int64 [size()], on the host

  // The fields asked (LoaderOptions::fields), in that order; field k is fields[k]. Each of the
  // calls below throws Error(kInvalidArgument) for a k outside [0, fields()), a name not asked
  // (listing those asked), a row i outside [0, size()), or an array asked of a bytes or text
  // field; their results live as long as the Batch.
  int fields() const;
  const FieldSpec& field_spec(int k) const;
  int field_index(std::string_view name) const;
  // Array field k: size() x its shape, where the images are (the GPU stage: on the device; its
  // rows are on the host too, through field_bytes). A mask, boxes, box_labels or box_values
  // field (docs/augment.md, "Masks and boxes follow the image's geometry"): its values moved
  // with view `view`'s image (0 .. views() - 1): a mask (B, Ho, Wo) of its type, aligned pixel
  // for pixel with image_tensor(view); boxes (B, Kmax, 4) float32 xyxy in the delivered image's
  // pixels, Kmax the most any sample kept, rows past a sample's box_counts zero; box labels
  // (B, Kmax) int64, the kept boxes' classes, and box values (B, Kmax) of their type, the kept
  // boxes' values, both 0 past a sample's count. With the GPU stage a mask is on the device
  // (cropped there); boxes, their counts, labels and values are on the host.
  FieldTensor field_tensor(int k, int view = 0) const;
  FieldTensor field_tensor(std::string_view name, int view = 0) const;
  // Boxes field k: how many boxes each sample kept in view `view`, int64 (B).
  FieldTensor box_counts(int k, int view = 0) const;
  // What keeps field_tensor(k, view)'s memory (and a boxes field's box_counts(k, view)'s)
  // alive without the Batch: for a mask, boxes, box labels or values field on the host, whose
  // tensors the Batch made for itself, an owner of that one tensor, which keeps neither the slot
  // nor the Batch's other arrays; null for any other field and for a mask on the device (its memory
  // is the Batch's: hold the Batch). Throws as field_tensor does.
  std::shared_ptr<const void> field_owner(int k, int view = 0) const;
  // Sample i's value of field k, any kind: an array row's row_bytes() bytes, a bytes or text
  // row's bytes (text: UTF-8).
  std::span<const uint8_t> field_bytes(int k, int64_t i) const;
  // The same as text (the bytes as they are; a text field's are UTF-8).
  std::string_view field_text(int k, int64_t i) const;

  int64_t epoch() const;
  int64_t step() const;  // position of this batch in the epoch, echoes counted

  struct Impl;
  explicit Batch(std::shared_ptr<const Impl> impl);

 private:
  // impl_, or Error(kInvalidArgument) for a moved-from Batch (which may still be assigned to
  // or destroyed): every call above goes through it.
  const Impl& live() const;

  std::shared_ptr<const Impl> impl_;  // holds the slot until the last copy is destroyed
};

// Where a loader stands: enough to resume exactly, on the same file with the same order options,
// on any number of ranks. Nothing in it is rank-local: with synchronous training every rank is
// at the same step, so every rank's state is the same and rank 0's alone resumes the job.
struct LoaderState {
  int64_t epoch = 0;
  // Batches each rank has delivered in this epoch, echoes counted, earlier stretches included.
  int64_t step = 0;
  uint64_t seed = 0;
  // Of the file geometry and the order options (batch_size, drop_last_batch, sampler,
  // shard.drop_last, echo); not of the world size, which is carried below.
  uint64_t fingerprint = 0;
  // The ranks of the job that took the state. 0: a state of an h5feed from before elastic
  // resume, whose fingerprint covers the world size; it resumes the same world size only.
  int world_size = 0;
  // This epoch's earlier stretches on other world sizes, oldest first; empty unless the job
  // changed size during the epoch. The current stretch began at step sum(steps).
  std::vector<EpochStretch> stretches;
  // The values the fingerprint covers, as text ("samples=50000 ... echo=1"), so that Restore
  // can say which differ.
  std::string order_key;
};

struct LoaderStats {
  uint64_t batches = 0;
  uint64_t samples = 0;
  uint64_t chunk_reads = 0;  // chunks read and decompressed
  // Of chunk_reads, those made ahead for the epoch after the one being read (its first
  // window, loaded while this one ends; docs/reader.md). A run that stops after epoch e has
  // read these for an epoch it never reads.
  uint64_t chunk_reads_ahead = 0;
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t bytes_read = 0;  // from the file
  uint64_t bytes_decoded = 0;
  uint64_t corrupt_chunks_skipped = 0;  // distinct chunks, with skip_corrupt_chunks
  uint64_t samples_skipped = 0;  // rows left out of batches: those chunks', rows not decoding
  double wait_seconds = 0;       // time Next() spent waiting for a batch
  // Host memory of the batch slots (LoaderOptions::slots of them: the gathered images and, on
  // the CPU path, every view's normalized images), held beside the cache for the loader's life.
  uint64_t slot_bytes = 0;
};

struct DatasetInfo {
  std::string path;
  int64_t samples = 0;
  ImageShape image_shape;     // own-size files: the largest height, width and channels
  int64_t chunk_samples = 0;  // own-size files: the most images a chunk holds
  int64_t chunks = 0;
  // Images stored each at its own size (docs/format.md, version 2): read through a crop.
  bool own_size = false;
  // Chunk c holds rows [chunk_first_rows[c], chunk_first_rows[c + 1]) (chunks + 1 entries, the
  // first 0, the last `samples`): chunk_samples rows each (the last one fewer) in a file of one
  // image size, as many whole images as fit a chunk's bytes in a file of images at their own size.
  std::vector<int64_t> chunk_first_rows;
  std::vector<std::string> classes;
};

// Every field of `stats` as named values, keys in the order LoaderStats declares them: what
// Python's Loader.stats() returns and `h5feed bench --json` writes as "stats".
ReportValue StatsValue(const LoaderStats& stats);
// Every field of `dataset` as named values, keys in the order DatasetInfo declares them,
// image_shape as [height, width, channels]: Python's Loader.dataset, and `h5feed bench --json`'s
// "dataset".
ReportValue DatasetValue(const DatasetInfo& dataset);

class Loader {
 public:
  // Opens the file and checks everything that can be checked before reading: format version,
  // dataset, dtype and rank, a batch larger than a rank's share, options out of range.
  static Loader Open(const std::string& path, const LoaderOptions& options);

  // A moved-from Loader may be assigned to or destroyed; any other call throws
  // Error(kInvalidArgument).
  Loader(Loader&&) noexcept;
  Loader& operator=(Loader&&) noexcept;
  ~Loader();  // stops the workers and waits for them; batches still held stay valid

  // Starts epoch `epoch` (0 or more) from its beginning (the order depends on it); a negative
  // one throws Error(kInvalidArgument).
  void SetEpoch(int64_t epoch);
  // Progressive resizing: from the next SetEpoch or Restore on, view spec `spec` (the index in
  // output.views; 0 for output.augment) delivers height x width (its random resized crop's or
  // center crop's size), without reopening: the buffers were sized at Open for the largest
  // size (AugmentOptions::max_output_height/width). Batches already delivered keep their size.
  // Throws Error(kInvalidArgument) when the loader does not normalize, the spec has no crop
  // whose size to set, or the size needs more room than Open made.
  void SetOutputSize(int64_t height, int64_t width, int spec = 0);
  // The next batch of the current epoch, or nullopt at its end (and again after it), waiting
  // for it if needed (the wait is counted in stats().wait_seconds). The last short batch of an
  // epoch is delivered unless drop_last_batch. Rethrows, with its context, any error a worker
  // met (the loader can then be destroyed cleanly). Throws Error(kInvalidArgument) after 5 s
  // when the batches the caller holds leave no slot for the next one (the loader goes on once
  // they are released).
  std::optional<Batch> Next();
  // Whether Next would return without waiting (a batch, the end of the epoch or an error is
  // ready), waiting up to `timeout` for it to; the wait counts in stats().wait_seconds. Lets a
  // caller that must stay responsive wait in slices: the Python module checks for Ctrl-C
  // between them.
  bool WaitReady(std::chrono::milliseconds timeout);

  // Where the trainer stands: the epoch and the number of batches Next has delivered in it.
  LoaderState State() const;
  // Continues where `state` was taken. A state from any rank resumes every rank (all ranks
  // are at the same step). On as many ranks as the state's world_size, the batches that follow
  // are those the uninterrupted run delivered; on another number, the rest of the epoch (every
  // old rank's undelivered rows) is dealt to this job's ranks by chunk, in equal shares, so
  // that across the job each row of the epoch is delivered once (but for the equal-count
  // padding or drop_last), with the augmentation draws it would have had; the next SetEpoch
  // starts a plain order on the new world size (docs/reader.md, "Resuming on another number
  // of ranks"). Costs one epoch-order computation on the same world size; on another, less
  // than one whole epoch's order after one or two changes (sampler/elastic_order.h says what
  // it computes); no replay. Throws Error(kInvalidArgument), saying what differs, if the
  // state comes from another seed, another file geometry or other order options (batch_size,
  // drop_last_batch, sampler, shard.drop_last, echo), or is inconsistent (a step outside its
  // epoch or stretch, a world_size or stretch below 1, a fingerprint that does not match its
  // order_key).
  void Restore(const LoaderState& state);

  // Batches of the current epoch, echoes counted: those of this rank's share of a plain epoch;
  // in an epoch resumed on another number of ranks, the steps before the change plus this
  // rank's share of the rest (what State().step reaches at the epoch's end).
  int64_t batches_per_epoch() const;
  int64_t samples_per_epoch() const;  // this rank's share of a plain epoch (before drop_last_batch)
  const DatasetInfo& dataset() const;
  // What each batch's fields are: the specs of LoaderOptions::fields, in that order.
  const std::vector<FieldSpec>& fields() const;
  // Of those, the names of the array fields read with the image chunks rather than held whole
  // (LoaderOptions::held_field_bytes); empty when every field is held.
  std::vector<std::string> streamed_fields() const;
  LoaderStats stats() const;

  // The implementation, opaque (as Batch's): Loaders come from Open.
  struct Impl;
  explicit Loader(std::unique_ptr<Impl> impl);

 private:
  // impl_, or Error(kInvalidArgument) for a moved-from Loader (every call but assignment and
  // destruction).
  Impl& live() const;

  std::unique_ptr<Impl> impl_;
};

}  // namespace h5feed
