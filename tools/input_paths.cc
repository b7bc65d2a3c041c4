#include "input_paths.h"

#include <filesystem>
#include <system_error>

#include "h5feed/location.h"

namespace h5feed::cli {

std::string InputProblem(const std::string& path, InputKind kind) {
  // Said as a path, since callers put a role before it ("images file ..."); an unset shell
  // variable is the usual cause.
  if (path.empty()) return "'' (an empty path) does not exist: is a shell variable unset?";
  if (kind == InputKind::kFileOrUrl && Location(path).remote()) return "";
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) return path + " does not exist" + UnreadableUrlNote(path);
  const bool folder = std::filesystem::is_directory(status);
  if (kind == InputKind::kFolder) return folder ? "" : path + " is not a folder";
  return folder ? path + " is a folder, not a file" : "";
}

CLI::Validator ExistingInput(InputKind kind) {
  const char* description = kind == InputKind::kFolder      ? "FOLDER"
                            : kind == InputKind::kFileOrUrl ? "FILE or URL"
                                                            : "FILE";
  return CLI::Validator([kind](std::string& path) { return InputProblem(path, kind); },
                        description);
}

}  // namespace h5feed::cli
