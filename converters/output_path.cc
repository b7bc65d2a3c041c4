#include "output_path.h"

#include <filesystem>
#include <system_error>

#include "h5feed/writer.h"
#include "path_role.h"

namespace h5feed::converters {
namespace {

namespace fs = std::filesystem;

// The folders `output` would be written in, innermost first, each as the file system resolves
// it (so that "a/../b/out.h5" is in b, not in a), and the output itself first.
std::vector<fs::path> OutputAndFoldersAbove(const std::string& output) {
  std::error_code error;
  const fs::path absolute = fs::absolute(output, error);
  fs::path path = fs::weakly_canonical(absolute, error);
  if (error) path = absolute.lexically_normal();
  std::vector<fs::path> paths = {path};
  for (fs::path folder = path.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    paths.push_back(folder);
    if (folder == folder.root_path()) break;
  }
  return paths;
}

}  // namespace

std::string OutputProblem(const std::string& output, const std::vector<std::string>& inputs) {
  const std::vector<fs::path> paths = OutputAndFoldersAbove(output);
  for (const std::string& input : inputs) {
    std::error_code error;
    const fs::file_status status = fs::status(input, error);
    if (input.empty() || !fs::exists(status)) continue;
    if (!fs::is_directory(status)) {
      if (fs::equivalent(output, input, error)) {
        return "the output " + output + " is the input " + input +
               " (one file), which writing it would destroy; give another output path";
      }
      continue;
    }
    for (const fs::path& path : paths) {
      if (fs::equivalent(path, input, error)) {
        return "the output " + output + " is in the input folder " + input +
               ", among the files being read (it may replace one); give a path outside it";
      }
    }
  }
  return "";
}

void CheckOutputPlace(const std::string& output, bool overwrite, const OptionNames& option_names) {
  WriterOptions options;
  options.overwrite = overwrite;
  options.option_names = option_names;
  InRole("output", output, [&] { Writer::CheckOutput(output, options); });
}

}  // namespace h5feed::converters
