#pragma once
// Copies image rows into a host slot, choosing how the slot's memory is written.
//
// A batch of large images (a CelebA-shaped batch of 256 is 30 MB) does not stay in the CPU's
// caches until its consumer reads it: the trainer's normalize or the GPU's DMA reads it from
// memory. Ordinary stores first read every destination line into the cache (a
// read-for-ownership), so copying a row moves its bytes three times over the memory bus.
// Streaming (non-temporal) stores skip that read, so large slots are gathered faster with them
// (docs/reader.md, "What it costs"). A small batch (CIFAR-shaped, 786 KB) is still cached when
// read and is better written with ordinary stores.
//
// Streaming stores are weakly ordered: a thread that wrote with them calls
// FinishSlotWrites() before another thread may read the slot.

#include <cstddef>
#include <cstdint>

namespace h5feed::pipeline {

enum class SlotWrites { kCached, kStreaming };

// How to write a slot whose images take `slot_image_bytes`.
SlotWrites SlotWritesFor(size_t slot_image_bytes);

void CopyRow(uint8_t* to, const uint8_t* from, size_t bytes, SlotWrites writes);

// Orders this thread's streaming stores before its later stores (a no-op after kCached).
void FinishSlotWrites(SlotWrites writes);

}  // namespace h5feed::pipeline
