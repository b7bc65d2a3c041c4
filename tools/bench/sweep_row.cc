// SweepRow::Settings (sweep_row.h).

#include "sweep_row.h"

namespace h5feed::bench {

std::string SweepRow::Settings() const {
  if (kind == "reference")
    return sampler + " (DataLoader + h5py), chunk " + std::to_string(chunk_samples) + ", " +
           compression;
  return "chunk " + std::to_string(chunk_samples) + ", " + compression + ", cache " +
         std::to_string(cache_mb) + " MiB, " + sampler;
}

}  // namespace h5feed::bench
