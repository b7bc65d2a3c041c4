#pragma once
// What a public h5feed::Batch holds: one delivered batch from the pipeline, whose slot lease
// keeps the host memory leased until the last Batch copy sharing it is destroyed.

#include "h5feed/image_shape.h"
#include "h5feed/loader.h"
#include "pipeline/batch_queue.h"

namespace h5feed {

// Immutable once made; shared read-only by Batch copies (any threads).
struct Batch::Impl {
  pipeline::AssembledBatch batch;
  ImageShape shape;
  bool normalized = false;
};

}  // namespace h5feed
