#pragma once
// The --file-locking option of the commands that open a file to read it (verify, bench): the
// same words, help and meaning everywhere (h5feed/file_locking.h).

#include <CLI/CLI.hpp>

#include "h5feed/file_locking.h"

namespace h5feed::cli {

// Adds `--file-locking auto|on|off` to `command`, stored in `value` (its value now is the
// default shown).
void AddFileLockingOption(CLI::App& command, FileLocking& value);

}  // namespace h5feed::cli
