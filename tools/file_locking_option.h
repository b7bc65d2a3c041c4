#pragma once
// The --file-locking option of the commands that open a file to read it (verify, bench): the
// same words, help and meaning everywhere (h5feed/file_locking.h).

#include <CLI/CLI.hpp>
#include <string>

#include "h5feed/file_locking.h"

namespace h5feed::cli {

// Adds `--file-locking auto|on|off` to `command`, stored in `value` (default "auto").
void AddFileLockingOption(CLI::App& command, std::string& value);

// What the option's word means (the option has checked it is one of the three).
FileLocking ParseFileLocking(const std::string& value);

}  // namespace h5feed::cli
