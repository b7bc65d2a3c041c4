#pragma once
// For tests of error paths: the h5feed::Error a call throws. The test fails when the call
// throws nothing (or something other than an h5feed::Error, which doctest reports).

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "h5feed/error.h"

namespace h5feed::testing {

inline Error CaughtError(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no h5feed::Error thrown");
  return Error(ErrorCode::kInternal, "unreachable");
}

// The code of the Error `call` throws; its message too when `message` is given.
inline ErrorCode CodeOf(const std::function<void()>& call, std::string* message = nullptr) {
  const Error error = CaughtError(call);
  if (message) *message = error.what();
  return error.code();
}

}  // namespace h5feed::testing
