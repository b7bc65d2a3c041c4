#pragma once
// How the library's messages name an option. The library knows an option by its field in its
// C++ options struct, written as a path: "batch_size", "shard.world_size", "remote.retries",
// "output.views[1].max_output", "overwrite". A front end whose users spell options otherwise
// (the Python module's keywords, the command line's flags) gives the options struct an
// OptionNames that returns its own spelling, so that an error or a warning names what its user
// typed and can change: `--cache-mb` on the command line, `cache_bytes=` in Python.

#include <functional>
#include <string>
#include <string_view>

namespace h5feed {

// A member function of the object the options configure is named the same way, by its C++
// name followed by "()": "SetEpoch()", "Restore()", "State()", "SetOutputSize()" (Python's
// set_epoch, load_state_dict, state_dict, set_output_size).
//
// The caller's name for the field at `path`; "" when the caller has none of its own (the
// library then names the C++ field). Called on the thread that reports the error or warning,
// worker threads included: it must be safe to call concurrently.
using OptionNames = std::function<std::string(std::string_view path)>;

// The name `names` gives `path`, else the C++ one: `owner` + "." + path
// ("LoaderOptions.batch_size").
std::string NameOption(const OptionNames& names, std::string_view owner, std::string_view path);

// The name `names` gives member function `method` of `owner` (its path: method + "()"), else
// the C++ one: "Loader::SetEpoch".
std::string NameMethod(const OptionNames& names, std::string_view owner, std::string_view method);

}  // namespace h5feed
