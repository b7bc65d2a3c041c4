#include "hdf5/open_hdf5_file.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "support/caught_error.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

using testing::CaughtError;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a missing file, a folder, an empty file, a text file and no path are told apart") {
  testing::TempFolder folder;
  auto lock = Lock();
  SilenceErrors silence;
  const auto open = [](const std::string& path) {
    OpenHdf5File(Location(path), FileLocking::kAuto);
  };
  const Error absent = CaughtError([&] { open(folder / "absent.h5"); });
  CHECK(absent.code() == ErrorCode::kNotFound);
  CHECK(absent.missing_input());
  CHECK(std::string(absent.what()) == (folder / "absent.h5") + " does not exist");
  CHECK(CaughtError([&] { open(folder.path()); }).code() == ErrorCode::kInvalidArgument);
  const Error unnamed = CaughtError([&] { open(""); });  // not " does not exist"
  CHECK(unnamed.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(unnamed.what(), "the file's path is empty"));
  testing::RunPython("open(\"" + (folder / "empty.h5") + "\", \"w\").close(); open(\"" +
                     (folder / "text.h5") + "\", \"w\").write(\"not HDF5\")");
  const Error empty = CaughtError([&] { open(folder / "empty.h5"); });
  CHECK(empty.code() == ErrorCode::kCorrupt);
  CHECK(Contains(empty.what(), "is empty, not an HDF5 file"));
  const Error text = CaughtError([&] { open(folder / "text.h5"); });
  CHECK(text.code() == ErrorCode::kCorrupt);
  CHECK(Contains(text.what(), "text.h5 is not an HDF5 file"));
}

TEST_CASE("an HDF5 file opens read-only, locked") {
  testing::TempFolder folder;
  const std::string path = folder / "ok.h5";
  testing::RunPython("import h5py; h5py.File(\"" + path + "\", \"w\")[\"x\"] = [1, 2]");
  auto lock = Lock();
  SilenceErrors silence;
  const ReadOnlyFile opened = OpenHdf5File(Location(path), FileLocking::kOn);
  CHECK(opened.file.valid());
  CHECK(opened.locked);
  unsigned intent = 0;
  REQUIRE(H5Fget_intent(opened.file.get(), &intent) >= 0);
  CHECK(intent == H5F_ACC_RDONLY);
}

}  // namespace
}  // namespace h5feed::hdf5
