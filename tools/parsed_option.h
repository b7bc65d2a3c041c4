#pragma once
// Command-line options whose text the library parses: the library's own Parse checks the text
// while the command line is parsed, so a wrong one is a usage error (exit 2) with the
// library's message, which lists what is accepted. For an enum (lib/enum_names.h) --help
// also shows its words and the default, and the option stores the value itself: so
// `--file-locking` of verify and bench, and the converters' `--resize`, `--split` and
// `--labels`, spell their words where the Python module's arguments do.

#include <CLI/CLI.hpp>
#include <string>

#include "enum_names.h"
#include "h5feed/error.h"

namespace h5feed::cli {

// A check that `parse(text)` accepts the text; `description` stands for the value in --help.
template <typename Parse>
CLI::Validator ParsedBy(Parse parse, const std::string& description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const Error& e) {
          return e.what();
        }
      },
      description);
}

// Adds `name` to `command`, stored in `value` (which must outlive the parse); its current
// value is the default shown.
template <typename Enum>
CLI::Option* AddEnumOption(CLI::App& command, const std::string& name, Enum& value,
                           const std::string& help) {
  return command
      .add_option_function<std::string>(
          name, [&value](const std::string& text) { value = ParseName<Enum>(text); }, help)
      ->check(ParsedBy(ParseName<Enum>, enum_names::Listed<Enum>("|")))
      ->default_str(std::string(NameOf(value)));
}

}  // namespace h5feed::cli
