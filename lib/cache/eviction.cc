#include "cache/eviction.h"

namespace h5feed::cache {

CacheEntry* PickVictim(std::span<const std::unique_ptr<CacheEntry>> resident,
                       const AccessPlan* plan, int64_t now) {
  CacheEntry* best = nullptr;
  int64_t best_next = 0;
  for (const auto& owned : resident) {
    CacheEntry* e = owned.get();
    if (e->state != CacheEntry::State::kReady || e->pins > 0) continue;
    const int64_t next = plan != nullptr ? plan->NextUse(e->chunk, now) : 0;
    if (best == nullptr || next > best_next ||
        (next == best_next && e->last_use < best->last_use)) {
      best = e;
      best_next = next;
    }
  }
  return best;
}

}  // namespace h5feed::cache
