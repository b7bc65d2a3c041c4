#pragma once
// An emulated CUDA event (cudaEvent_t points to one): the marker of its latest record. A wait
// on it takes that marker at the time of the call, as cudaStreamWaitEvent waits for the record
// before it, not for later ones.
//
// Thread-safety: any host thread (its mutex; stream threads see only the markers).

#include <memory>
#include <mutex>

#include "marker.h"

struct CUevent_st {
  std::shared_ptr<cuda_emulation::Marker> latest() {
    std::lock_guard lock(mutex);
    return latest_record;
  }

  std::mutex mutex;
  std::shared_ptr<cuda_emulation::Marker> latest_record;  // guarded by mutex; null: never recorded
};
