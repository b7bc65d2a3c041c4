#pragma once
// Move-only owner of an HDF5 identifier (hid_t): files, groups, datasets, dataspaces,
// datatypes, property lists and attributes, each closed by its own H5*close.
//
// Not thread-safe by itself; HDF5 calls are made under hdf5::Lock() (hdf5/lock.h).

#include <hdf5.h>

#include <utility>

namespace h5feed::hdf5 {

using CloseFunction = herr_t (*)(hid_t);

template <CloseFunction Close>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  explicit operator bool() const { return valid(); }

  // Closes now; a failure to close is not reportable from here (H5Fclose's real errors are
  // surfaced by close(), for the paths that need them, such as Writer::Finish).
  void reset() {
    if (id_ >= 0) Close(id_);
    id_ = H5I_INVALID_HID;
  }
  // Closes now and says whether HDF5 succeeded: H5Fclose flushes HDF5's metadata cache, where a
  // full disk often shows first. On false, build the Error with StackError at once.
  [[nodiscard]] bool close() { return id_ < 0 || Close(std::exchange(id_, H5I_INVALID_HID)) >= 0; }
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using PropertyList = Handle<H5Pclose>;
using Attribute = Handle<H5Aclose>;

}  // namespace h5feed::hdf5
