#pragma once
// A conversion takes several paths (images, labels, the output), and an error about one must
// say which it is: "labels file small.h5 does not exist", not "cannot open small.h5", which
// leaves the user to guess why small.h5 was opened at all.

#include <string>
#include <string_view>

#include "h5feed/error.h"

namespace h5feed::converters {

// Runs `open` and returns what it returns; an Error it throws is thrown again, of the same
// code (and Error::missing_input()), its message led by `role` and the path: "labels file small.h5
// does not exist" where the message begins with the path, else "labels file small.h5: MESSAGE".
template <typename Open>
auto InRole(std::string_view role, const std::string& path, Open&& open) -> decltype(open()) {
  try {
    return open();
  } catch (const Error& e) {
    const std::string message = e.what();
    throw e.Reworded(std::string(role) + " " +
                     (message.rfind(path, 0) == 0 ? message : path + ": " + message));
  }
}

}  // namespace h5feed::converters
