#pragma once
// The output of a conversion or a merge against its inputs, checked before anything is
// written: an output that is one of the inputs (`merge P0 P1 P2 P2 --force`, a COCO JSON given
// again as OUT) would be replaced by what is made from it, and one inside an input folder (an
// image of SRC_DIR given as OUT) written among the files being read. The command line reports
// it as a usage error (exit 2; docs/command.md, "Exit codes and messages"), the library and
// the bindings as Error(kInvalidArgument). An output that exists (without --force), or where no
// file can be written (CheckOutputPlace), is a usage error too: the command line must change,
// and nothing was done.

#include <string>
#include <vector>

#include "h5feed/option_names.h"

namespace h5feed::converters {

// "" when `output` is none of `inputs` and in none of the folders among them; else what is
// wrong, naming both: "the output OUT is the input IN (one file) ...", "the output OUT is in
// the input folder IN ...". Paths are compared as the file system resolves them (links, "..",
// hard links: std::filesystem::equivalent); an input that does not exist is left out.
std::string OutputProblem(const std::string& output, const std::vector<std::string>& inputs);

// Throws Writer::CheckOutput's Error for `output`, led by "output" as a conversion's are
// ("output out.h5 already exists and is left as it is; remove it or allow overwriting
// (--force)"): its folder missing, a folder or a device in its place, or a file there and
// `overwrite` false. Reads nothing else, so that a front end refuses it before opening any
// input; the conversion and the merge check it again when they create the file.
void CheckOutputPlace(const std::string& output, bool overwrite, const OptionNames& option_names);

}  // namespace h5feed::converters
