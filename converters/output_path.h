#pragma once
// The output of a conversion or a merge against its inputs, checked before anything is
// written: an output that is one of the inputs (`merge P0 P1 P2 P2 --force`, a COCO JSON given
// again as OUT) would be replaced by what is made from it, and one inside an input folder (an
// image of SRC_DIR given as OUT) written among the files being read. The command line reports
// it as a usage error (exit 2; docs/command.md, "Exit codes and messages"), the library and
// the bindings as Error(kInvalidArgument).

#include <string>
#include <vector>

namespace h5feed::converters {

// "" when `output` is none of `inputs` and in none of the folders among them; else what is
// wrong, naming both: "the output OUT is the input IN (one file) ...", "the output OUT is in
// the input folder IN ...". Paths are compared as the file system resolves them (links, "..",
// hard links: std::filesystem::equivalent); an input that does not exist is left out.
std::string OutputProblem(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace h5feed::converters
