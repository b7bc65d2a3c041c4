#pragma once
// The checks Loader::Open makes before allocating anything: options out of range, and options
// that do not fit the dataset (drop_last_batch with fewer rows than one batch, memory beyond
// the machine's). Each failure is an Error(kInvalidArgument) naming the option as the caller
// spells it (LoaderOptions::option_names), its value and the accepted range. (Normalizing
// images with more channels than mean and std give is refused by MakeNormalizeParams.)
// Limits: threads and slots at most kMaxThreads and kMaxSlots (absurd values are typos).

#include <cstdint>
#include <string>
#include <string_view>

#include "h5feed/loader_options.h"
#include "memory/slot_layout.h"

namespace h5feed::loader {

// More worker threads than this is a typo, not a machine (TBB would start them all).
inline constexpr int kMaxThreads = 1024;
// More batch slots than this is a typo; each is a batch of memory.
inline constexpr int kMaxSlots = 1024;

// The host batch buffers the loader has: the prefetch depth `slots` plus the batches the
// caller holds while it asks for the next (LoaderOptions::held_batches).
inline int SlotCount(const LoaderOptions& options) { return options.slots + options.held_batches; }

// The caller's name for the LoaderOptions field at `field` ("batch_size", "remote.retries"):
// LoaderOptions::option_names' answer, else "LoaderOptions.<field>".
std::string OptionName(const LoaderOptions& options, std::string_view field);

// Options alone (no file needed).
void CheckOptions(const LoaderOptions& options);

// What the opened dataset asks of memory, for CheckOptionsForDataset.
struct DatasetFootprint {
  int64_t samples_per_rank = 0;  // SamplesPerRank of its geometry
  int64_t batch_capacity = 0;    // rows a slot holds: batch_size, or fewer rows per rank
  int64_t image_bytes = 0;       // one decoded image
  memory::SlotContents slot;     // what a host slot holds besides the images (DeliveryPlan)
  int64_t chunk_bytes = 0;       // one decoded chunk (what the cache holds per entry)
  int64_t chunks = 0;            // chunks in the file
  // The host masks one batch row carries (geometric_fields.h, MaskBytesPerRow; 0 on the GPU
  // path, whose masks are on the device): each slot's batch holds its masks, made ahead of the
  // trainer in the assembler.
  int64_t mask_bytes = 0;
};

// Options against the opened dataset: a rank's share holds a whole batch when drop_last_batch
// drops a short one (without it, fewer rows than a batch are one short batch), and the memory the
// loader would commit (CommittedBytes) fits the machine's physical memory; refused before any of
// it is allocated, naming what to lower (the masks' part too, when they are asked).
void CheckOptionsForDataset(const LoaderOptions& options, const std::string& path,
                            const DatasetFootprint& dataset);

// What the loader commits for its slots and cache, and the masks of its slots' batches: slots x
// the bytes of batch_capacity rows, plus the cache as far as the file fills it, plus slots x
// batch_capacity x mask_bytes. The slots and the cache are allocated at Open; the masks are
// made with each batch in a slot, so as many live at once as soon as the trainer's pace lets the
// slots fill (a mask tensor the trainer keeps beyond its batch, Batch::field_owner, is its own).
// (A double: absurd options saturate, and are refused above.)
double CommittedBytes(const LoaderOptions& options, const DatasetFootprint& dataset);

// The machine's physical memory less CommittedBytes, 0 at least: what the fields a loader holds
// may take (loader/batch_fields.h).
uint64_t MemoryBesideCommitted(const LoaderOptions& options, const DatasetFootprint& dataset);

}  // namespace h5feed::loader
