// SweepRow::Settings (sweep_row.h).

#include "sweep_row.h"

#include "byte_size.h"

namespace h5feed::bench {

std::string FileVariantWords(int64_t chunk_samples, const std::string& encoding,
                             int64_t chunk_bytes, const std::string& compression) {
  if (chunk_bytes > 0) {
    return encoding + ", chunks of " + ToString(ByteSize(chunk_bytes)) + ", " + compression;
  }
  return "chunk " + std::to_string(chunk_samples) + ", " + compression;
}

std::string SweepRow::FileName() const {
  return FileVariantWords(chunk_samples, encoding, chunk_bytes, compression);
}

std::string SweepRow::Settings() const {
  if (kind == "reference") return sampler + " (DataLoader + h5py), " + FileName();
  return FileName() + ", cache " + std::to_string(cache_mb) + " MiB, " + sampler;
}

}  // namespace h5feed::bench
