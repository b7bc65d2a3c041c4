#pragma once
// The output of a command that writes one (convert, rechunk, merge) against its inputs, checked
// before anything is read or written: an output that is one of the inputs (`merge P0 P1 P2 P2
// --force`, a COCO JSON given again as OUT) would be replaced by what is made from it, and one
// inside an input folder (an image of SRC_DIR given as OUT) written among the files being
// read. Either is a wrong command line (exit 2; docs/command.md, "Exit codes and messages").

#include <string>
#include <vector>

namespace h5feed::cli {

// "" when `output` is none of `inputs` and in none of the folders among them; else what is
// wrong, naming both: "the output OUT is the input IN (one file) ...", "the output OUT is in
// the input folder IN ...". Paths are compared as the file system resolves them (links, "..",
// hard links: std::filesystem::equivalent); an input that does not exist is left out.
std::string OutputProblem(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace h5feed::cli
