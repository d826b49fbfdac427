# Warnings applied to Portolan's own targets (not to third-party code).
function(portolan_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter -Wno-maybe-uninitialized>)
endfunction()
