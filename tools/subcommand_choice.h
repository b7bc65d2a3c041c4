#pragma once
// A command that takes one of its subcommands by name: `h5feed COMMAND`, `h5feed convert
// SOURCE`. CLI11's own check says only "A subcommand is required", whatever was given in its
// place, and with allow_extras (which lets this name an unknown one) an argument given before
// the subcommand's name (`h5feed convert --size 224 imagefolder ...`) belongs to neither
// command and would be dropped silently: the subcommand's options go after its name.

#include <string>

namespace CLI {
class App;
}

namespace h5feed::cli {

// Makes `command` take exactly one of its subcommands, and refuses (a usage error, exit 2)
// none, a name it does not know ("unknown source 'voc'; sources: imagefolder, ..."), and any
// argument given before the subcommand ("--size must follow the source: h5feed convert
// imagefolder --size ..."). `kind` is what a subcommand is called ("command", "source");
// `hint` follows the list of names in messages. Call it after the subcommands are added: CLI11
// copies allow_extras into the subcommands added after it.
void RequireOneSubcommand(CLI::App& command, const std::string& kind, const std::string& hint = "");

}  // namespace h5feed::cli
