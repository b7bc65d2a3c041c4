#include "format/partial_file.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "h5feed/error.h"
#include "support/temp_folder.h"

namespace h5feed::format {
namespace {

void Touch(const std::string& path, const std::string& content = "x") {
  std::ofstream(path) << content;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The pid of a process that has exited and been reaped.
pid_t DeadPid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST_CASE("the temporary name is .NAME.partial-PID in the output's folder") {
  CHECK(PartialPath("/data/sets/train.h5", 42) == "/data/sets/.train.h5.partial-42");
  CHECK(PartialPath("train.h5", 7) == "./.train.h5.partial-7");
  CHECK(FolderOf("train.h5") == ".");
  CHECK(FolderOf("/data/train.h5") == "/data");
}

TEST_CASE("stale partial files of dead processes are removed; live ones and others are kept") {
  testing::TempFolder folder;
  const std::string output = folder / "out.h5";
  const std::string dead = ".out.h5.partial-" + std::to_string(DeadPid());
  const std::string live = ".out.h5.partial-" + std::to_string(getppid());
  const std::string own = ".out.h5.partial-" + std::to_string(getpid());
  const std::string other_output = ".other.h5.partial-" + std::to_string(DeadPid());
  for (const std::string& name :
       {dead, live, own, other_output, std::string(".out.h5.partial-x"), std::string("out.h5")}) {
    Touch(folder / name);
  }
  CHECK(RemoveStalePartials(output) == 1);
  std::vector<std::string> left = folder.List();
  CHECK(std::find(left.begin(), left.end(), dead) == left.end());
  CHECK(left.size() == 5);
  CHECK(RemoveStalePartials(folder / "missing-folder/out.h5") == 0);
}

TEST_CASE("without overwrite, renaming onto an existing file fails and changes nothing") {
  testing::TempFolder folder;
  Touch(folder / "new", "new");
  Touch(folder / "old", "old");
  try {
    RenameIntoPlace(folder / "new", folder / "old", false);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kAlreadyExists);
  }
  CHECK(Slurp(folder / "old") == "old");
  CHECK(Slurp(folder / "new") == "new");
  RenameIntoPlace(folder / "new", folder / "fresh", false);
  CHECK(Slurp(folder / "fresh") == "new");
  CHECK(folder.List() == std::vector<std::string>{"fresh", "old"});
}

TEST_CASE("with overwrite, renaming replaces the existing file") {
  testing::TempFolder folder;
  Touch(folder / "new", "new");
  Touch(folder / "old", "old");
  RenameIntoPlace(folder / "new", folder / "old", true);
  CHECK(Slurp(folder / "old") == "new");
  CHECK(folder.List() == std::vector<std::string>{"old"});
}

TEST_CASE("syncing a file or folder that does not exist is kNotFound naming it") {
  testing::TempFolder folder;
  Touch(folder / "file");
  SyncFile(folder / "file");
  SyncFolder(folder.path());
  try {
    SyncFile(folder / "absent");
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kNotFound);
    CHECK(std::string(error.what()).find("absent") != std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::format
