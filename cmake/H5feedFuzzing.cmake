# H5FEED_BUILD_FUZZERS: the libFuzzer targets of tests/fuzz (docs/fuzzing.md, scripts/fuzz.sh).
# libFuzzer comes with clang only (Debian: clang, libclang-rt-14-dev). Everything built in
# this configuration is instrumented for coverage (fuzzer-no-link) and checked by
# AddressSanitizer and UndefinedBehaviorSanitizer, so a fault in our code under a fuzzed input
# stops the run with a report instead of passing silently; only the fuzz targets link
# libFuzzer's main. Included before lib/ so that the flags reach every library target.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "H5FEED_BUILD_FUZZERS needs clang (libFuzzer): configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++, as scripts/fuzz.sh does")
endif()
if(H5FEED_SANITIZE)
  message(FATAL_ERROR "H5FEED_BUILD_FUZZERS brings its own sanitizers; leave H5FEED_SANITIZE empty")
endif()
set(h5feed_fuzz_sanitizers address,undefined)
add_compile_options(
  $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link,${h5feed_fuzz_sanitizers}>
  $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined>
  $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>)
add_link_options(-fsanitize=${h5feed_fuzz_sanitizers})
