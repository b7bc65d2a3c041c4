// SweepRow::Settings (sweep_row.h).

#include "sweep_row.h"

#include "byte_size.h"
#include "sweep_plan.h"

namespace h5feed::bench {

std::string SweepRow::FileName() const {
  if (chunk_bytes > 0) {
    return encoding + ", chunks of " + ToString(ByteSize(chunk_bytes)) + ", " + compression;
  }
  return "chunk " + std::to_string(chunk_samples) + ", " + compression;
}

std::string SweepRow::Settings() const {
  if (kind == "reference") return sampler + " (DataLoader + h5py), " + FileName();
  return FileName() + ", cache " + std::to_string(cache_mb) + " MiB, " + sampler;
}

}  // namespace h5feed::bench
