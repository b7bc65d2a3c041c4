#pragma once
// Everything a trainer chooses about how a Loader reads: what, in which order, with how much
// memory and how many threads, and what a batch looks like.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/file_locking.h"
#include "h5feed/option_names.h"
#include "h5feed/output_options.h"
#include "h5feed/remote_options.h"
#include "h5feed/sampler_options.h"

namespace h5feed {

// Which decompressed chunk the cache drops when it is full: kBelady, the one the epoch's plan
// needs again last (or never); kLru, the one used least recently (for comparison).
enum class EvictionPolicy { kBelady, kLru };

// "belady", "lru".
std::string_view ToString(EvictionPolicy policy) noexcept;
// The inverse of ToString, in any case. Throws Error(kInvalidArgument) listing the words.
EvictionPolicy ParseEvictionPolicy(std::string_view text);

struct LoaderOptions {
  // --- What to read.
  // "" = "images", else the only 4-D uint8 dataset, else the only 3-D one (N x H x W
  // grayscale, delivered as H x W x 1).
  std::string images_dataset;
  std::string labels_dataset;  // "" = "labels" if present, else every label is 0
  // The file's fields (docs/format.md, "Fields") each batch delivers beside its images, in
  // this order: Batch::field_spec(k) is fields[k]'s. Open reads each one whole, checking every
  // row against its checksum, and the loader holds it in memory for its life, shared by every
  // batch (a sharded job holds them once per rank); that memory counts with the slots' and the
  // cache's against the machine's, and Open refuses fields that would not fit it, a name the
  // file lacks (listing its fields) and a name given twice. Array fields beyond
  // held_field_bytes are read with the image chunks instead. Empty: no fields, no cost.
  std::vector<std::string> fields;
  // The most bytes of field values a loader holds whole. When the asked fields' values take
  // more, array fields are streamed, the largest first, until the rest fit: the rows of each
  // chunk of images are read with it, checked, and kept in the cache beside it, counted in
  // cache_bytes (docs/reader.md, "Fields too large for memory"). Bytes and text fields are
  // always held. 0: a quarter of the machine's memory.
  int64_t held_field_bytes = 0;

  // --- Batches and order.
  int64_t batch_size = 256;
  // Drop the last batch of an epoch when it is short (torch's DataLoader drop_last).
  bool drop_last_batch = false;
  SamplerOptions sampler;  // default chunks:8
  uint64_t seed = 0;       // with the epoch, fixes the order (and echo shuffles)
  // Under chunks:W and quasi:W, Open measures how many classes the batches of epoch 0 mix
  // against a random order of the same rows (the labels' entropy per batch), and warns
  // (on_warning) when they carry less than 0.85 of it: a file stored sorted by label, read
  // with a window too small to mix it, trains badly without any error. The warning names
  // `h5feed rechunk ... --seed 0` and the window that would mix. It costs about one more
  // epoch order's computation at Open (docs/reader.md, "Label mixing"). false skips the check: for
  // a file whose order is meant (a curriculum), or labels that are not classes.
  bool check_label_mixing = true;
  ShardOptions shard;  // rank, world_size, drop_last (DistributedSampler's contract)

  // --- Memory and threads. Resident memory is about cache_bytes + slots x batch bytes, and at
  // most a quarter of cache_bytes more for bytes read ahead of their loads into buffers of the
  // loader's (a remote file's, or with direct; through the page cache they are the kernel's).
  // Decompressed chunks kept. For each chunk to be read once per epoch, it must hold the
  // sampler's window (chunks:W, quasi:W) plus the chunks of the prefetched batches; for
  // `random` it must hold the whole file. For chunks:W to load the next window while the
  // current one is gathered, W chunks more. Open warns (on_warning) when it holds less, with
  // the size that fits.
  int64_t cache_bytes = int64_t{512} << 20;
  EvictionPolicy eviction = EvictionPolicy::kBelady;
  // Host batch buffers (pinned when a GPU is used): the prefetch depth. Two let one batch
  // be assembled while the trainer holds another; more absorb jitter. With the GPU stage,
  // also the number of delivered batches the device holds (at least 2). Their memory is
  // committed by Open, like the cache's, so the first epoch does not page-fault through it.
  int slots = 4;
  // Delivered batches the caller keeps alive while it asks for the next one, beyond `slots`:
  // a Python `for` loop's variables hold the previous batch while next() waits (the module
  // sets 1), where C++'s `while (auto batch = loader.Next())` holds none. The loader has
  // slots + held_batches buffers, so that the prefetch depth is `slots` for either.
  int held_batches = 0;
  int threads = 0;  // worker threads; 0 = all cores

  // --- What a batch holds.
  // false: uint8 NHWC, as stored. true: (x / 255 - mean) / std per channel, as output.type in
  // output.layout (float32 NCHW by default).
  bool normalize = false;
  // ImageNet's, on the 0..1 scale of x / 255; Open refuses a mean outside 0..1 (0..255 values).
  std::array<float, 3> mean = {0.485f, 0.456f, 0.406f};
  std::array<float, 3> std = {0.229f, 0.224f, 0.225f};
  // Element type, layout, augmentation and device of the delivered batches (output_options.h).
  OutputOptions output;
  // Batch echoing: each loaded batch is delivered `echo` times, its samples reshuffled each
  // time after the first. Worth it only when loading, not the step, is the bottleneck. On the
  // CPU each copy is a batch in its own slot, so slots must be >= echo (and the prefetch depth
  // in loaded batches is slots / echo).
  int echo = 1;

  // --- Opening. HDF5's shared file lock (file_locking.h): kAuto opens without it, with a
  // warning, where the file system refuses locks (NFS without lockd); kOff never locks.
  FileLocking file_locking = FileLocking::kAuto;
  // The open probe: HDF5 1.10.8 crashes (SIGSEGV) or spins forever on some damaged or hostile
  // files while parsing their structure, and a crash inside HDF5 would end the trainer. With
  // it on, Open first does the same HDF5 open in a separate program (h5feed-open-probe,
  // started with posix_spawn); when HDF5 crashes or hangs there, Open throws Error(kCorrupt)
  // naming the file instead. Costs one process start and a second open, once per Open
  // (docs/reliability.md, "Open probe"). Where the program cannot
  // be found (set $H5FEED_OPEN_PROBE), Open goes on in-process with one warning.
  bool open_probe = true;
  // The probe's open must finish within this long (seconds) or HDF5 is taken to be spinning
  // on the file. Opening reads metadata only (milliseconds on a local disk): raise it for a
  // very slow network file system. The probe's limit: another value with open_probe false is
  // refused at Open (nothing in this process can give up a hung open), not ignored.
  int open_probe_stall_seconds = 60;
  // A remote file (Loader::Open of an http://, https:// or s3:// URL): connections, retries
  // and timeouts (remote_options.h, docs/remote.md).
  RemoteOptions remote;

  // --- Reading. An uncompressed chunk that is in the page cache is used where it lies there,
  // through a mapping of the file (mmap, every page made present before use): each byte is
  // copied once, into the batch, instead of twice. A file truncated by another process while
  // a chunk of it is mapped can then end the process with SIGBUS at the next access; false
  // reads everything with pread (docs/reader.md has what each way costs).
  bool map_file = true;
  // Read the file with O_DIRECT: every chunk from the disk into the loader's own buffers (4 KiB
  // aligned), none through the page cache. For a data set larger than memory, where caching
  // the file only evicts what the trainer's process needs; a run then leaves the file out of
  // the page cache (but for HDF5's metadata). Each chunk is still read ahead of its batch, as
  // many at once as the disk needs (docs/reader.md, "Reading from the disk"). Files h5feed
  // writes align chunks to 4 KiB; older ones are read through the aligned range around each
  // chunk. A local file only (Error(kInvalidArgument) for a remote one), on a file system that
  // reads with O_DIRECT (Error(kUnsupported) otherwise: tmpfs before Linux 6.6, some FUSE and
  // network file systems). Chunks a foreign file has HDF5 read are read as HDF5 reads them.
  bool direct = false;
  // Files of images stored as JPEG: decode only what each crop reads (rows above and below it
  // skipped, columns narrowed to it, and 1/2, 1/4 or 1/8 scale in the DCT when the crop shrinks
  // by that much; docs/reader.md, "Images at their own size"). false decodes every JPEG whole
  // at full size before cropping, as FFCV does: the reference for what this gains.
  bool jpeg_region_decode = true;

  // --- Integrity.
  // Check what is read against its XXH3-64 (h5feed files): each image as it is copied into a
  // batch when the file stores per-image checksums (/row_checksums), else each chunk as it is
  // loaded.
  bool verify_checksums = true;
  // Leave a corrupt chunk's samples out of batches with a warning, counted, instead of failing:
  // a chunk with any image failing its checksum is left out whole, decided from its bytes
  // before any of them is delivered, so batches do not depend on thread timing, and so is the
  // chunk of a damaged row of a field read whole at Open, from the first step
  // (docs/reliability.md, "With skip_corrupt_chunks").
  bool skip_corrupt_chunks = false;
  // Where warnings go: one per skipped chunk (from a worker thread, or from Open's for the
  // chunk of a held field's damaged row), one when Open had to open the file without its lock
  // (from Open's thread). One call at a time; it must not call back into the Loader. Empty:
  // printed to stderr.
  std::function<void(const std::string&)> on_warning;
  // How errors and warnings name these options (option_names.h): a front end passes its own
  // spelling of a field path ("batch_size", "shard.world_size", "output.augment.max_output").
  // Empty: the C++ names, "LoaderOptions.batch_size".
  OptionNames option_names;
};

}  // namespace h5feed
