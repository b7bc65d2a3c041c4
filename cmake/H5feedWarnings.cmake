# Warnings live in an INTERFACE target that every h5feed target links privately, so consumers
# of the installed library never inherit them.
add_library(h5feed_warnings INTERFACE)
target_compile_options(h5feed_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Werror=return-type>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra>)

if(H5FEED_SANITIZE)
  add_compile_options(-fsanitize=${H5FEED_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${H5FEED_SANITIZE})
  # clang links its ASan runtime statically into each program unless told otherwise. The Python
  # module's tests preload the shared runtime into Python (scripts/sanitize.sh), and the h5feed
  # programs they start inherit the preload: every program must then use that same shared
  # runtime, found through its rpath, or two runtimes meet in one process.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND H5FEED_SANITIZE MATCHES "address")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                    OUTPUT_VARIABLE h5feed_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(h5feed_asan_runtime_dir "${h5feed_asan_runtime}" DIRECTORY)
    add_link_options(-shared-libasan LINKER:-rpath,${h5feed_asan_runtime_dir})
  endif()
endif()
