#include "hdf5/error.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <string>

#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Puts one entry on this thread's error stack, as HDF5's sec2 driver does when write() fails.
void PushDriverError(int error_number, const char* message) {
  H5Eclear2(H5E_DEFAULT);
  H5Epush2(H5E_DEFAULT, __FILE__, "H5FD_sec2_write", __LINE__, H5E_ERR_CLS, H5E_IO, H5E_WRITEERROR,
           "file write failed: filename = 'x.h5', errno = %d, error message = '%s'", error_number,
           message);
}

TEST_CASE("a failed HDF5 call becomes an Error naming what failed, the file and HDF5's reason") {
  auto lock = Lock();
  SilenceErrors silence;
  testing::TempFolder folder;
  const std::string path = folder / "missing.h5";
  File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(!file);
  std::string stack = ErrorStackText();
  CHECK(Contains(stack, "H5Fopen(): "));
  CHECK(Contains(stack, "unable to open file"));
  Error error = StackError(ErrorCode::kIo, "opening the input", path);
  CHECK(error.code() == ErrorCode::kIo);
  std::string message = error.what();
  CHECK(Contains(message, "opening the input failed for " + path));
  CHECK(Contains(message, "unable to open file"));
}

TEST_CASE("ENOSPC, EDQUOT and EFBIG in HDF5's stack become kNoSpace saying the disk is full") {
  auto lock = Lock();
  SilenceErrors silence;
  PushDriverError(ENOSPC, "No space left on device");
  CHECK(ErrorStackErrno() == ENOSPC);
  Error full = StackError(ErrorCode::kIo, "writing chunk 3 of /images", "/data/out.h5");
  CHECK(full.code() == ErrorCode::kNoSpace);
  CHECK(Contains(full.what(),
                 "the disk is full: writing chunk 3 of /images failed for "
                 "/data/out.h5"));
  CHECK(Contains(full.what(), "Free space"));

  PushDriverError(EFBIG, "File too large");
  Error too_big = StackError(ErrorCode::kIo, "closing", "/data/out.h5");
  CHECK(too_big.code() == ErrorCode::kNoSpace);
  CHECK(Contains(too_big.what(), "ulimit -f"));

  PushDriverError(EDQUOT, "Disk quota exceeded");
  CHECK(StackError(ErrorCode::kIo, "closing", "/data/out.h5").code() == ErrorCode::kNoSpace);

  PushDriverError(EIO, "Input/output error");
  Error other = StackError(ErrorCode::kIo, "closing", "/data/out.h5");
  CHECK(other.code() == ErrorCode::kIo);
  CHECK(Contains(other.what(), "errno = 5"));
  H5Eclear2(H5E_DEFAULT);
}

TEST_CASE("an empty stack still gives a message") {
  auto lock = Lock();
  H5Eclear2(H5E_DEFAULT);
  CHECK(ErrorStackText().empty());
  CHECK(ErrorStackErrno() == 0);
  Error error = StackError(ErrorCode::kInternal, "doing something", "f.h5");
  CHECK(Contains(error.what(), "HDF5 gave no reason"));
}

TEST_CASE("SilenceErrors turns automatic printing off on this thread and restores it after") {
  auto lock = Lock();
  H5E_auto2_t before = nullptr;
  void* before_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &before, &before_data);
  REQUIRE(static_cast<bool>(before));  // HDF5 prints by default
  {
    SilenceErrors silence;
    H5E_auto2_t inside = before;
    void* inside_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &inside, &inside_data);
    CHECK(!inside);
  }
  H5E_auto2_t after = nullptr;
  void* after_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &after, &after_data);
  const bool restored = after == before;
  CHECK(restored);
  CHECK(after_data == before_data);
}

TEST_CASE("FileName names the file of any object in it") {
  auto lock = Lock();
  testing::TempFolder folder;
  const std::string path = folder / "named.h5";
  File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  Group group(H5Gcreate2(file.get(), "things", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  CHECK(FileName(group.get()) == path);
  CHECK(FileName(file.get()) == path);
}

}  // namespace
}  // namespace h5feed::hdf5
