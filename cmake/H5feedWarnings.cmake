# Warnings live in an INTERFACE target that every h5feed target links privately, so consumers
# of the installed library never inherit them.
add_library(h5feed_warnings INTERFACE)
target_compile_options(h5feed_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Werror=return-type>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra>)

if(H5FEED_SANITIZE)
  add_compile_options(-fsanitize=${H5FEED_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${H5FEED_SANITIZE})
endif()
