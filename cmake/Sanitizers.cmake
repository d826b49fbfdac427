# Opt-in developer builds: AddressSanitizer + UndefinedBehaviorSanitizer (PORTOLAN_SANITIZE) and
# libFuzzer targets (PORTOLAN_FUZZ, clang only). Both are OFF by default; the normal build's flags
# do not change. scripts/sanitize.sh and scripts/fuzz.sh configure a build-sanitize/ folder with both.
option(PORTOLAN_SANITIZE "Build everything with -fsanitize=address,undefined (developer checks)" OFF)
option(PORTOLAN_FUZZ "Build the libFuzzer targets of tests/fuzz (clang only)" OFF)

include(CheckCXXSourceCompiles)

# portolan_require_flags(RESULT_VAR SOURCE FLAG...): fails configure when the compiler cannot build and
# link SOURCE with these flags (a missing sanitizer runtime, say), naming the flags.
function(portolan_require_flags result source)
  set(CMAKE_REQUIRED_FLAGS "${ARGN}")
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
  set(CMAKE_REQUIRED_LINK_OPTIONS ${ARGN})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("${source}" ${result})
  if(NOT ${result})
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} cannot build with '${shown}': "
                        "install the sanitizer runtime (for clang 14 on Debian: libclang-rt-14-dev).")
  endif()
endfunction()

# Applied to the C and C++ sources of every target defined after this file is included (CUDA code
# built by nvcc is left alone).
set(PORTOLAN_SANITIZER_FLAGS "")
if(PORTOLAN_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang|GNU")
    message(FATAL_ERROR "PORTOLAN_SANITIZE needs clang or GCC (found ${CMAKE_CXX_COMPILER_ID}).")
  endif()
  set(PORTOLAN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  portolan_require_flags(PORTOLAN_SANITIZER_FLAGS_WORK "int main() { return 0; }" ${PORTOLAN_SANITIZER_FLAGS})
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${PORTOLAN_SANITIZER_FLAGS}>")
  add_link_options(${PORTOLAN_SANITIZER_FLAGS})
endif()

if(PORTOLAN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PORTOLAN_FUZZ needs clang (libFuzzer is part of clang's runtime), but the C++ compiler is "
                        "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}. Configure a separate folder with "
                        "-DCMAKE_CXX_COMPILER=clang++ (scripts/fuzz.sh does).")
  endif()
  set(fuzz_probe [[extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }]])
  portolan_require_flags(PORTOLAN_LIBFUZZER_WORKS "${fuzz_probe}" -fsanitize=fuzzer)
  # portolan_core is compiled with coverage instrumentation (see portolan_fuzz_instrument). Every
  # program linking it then needs the __sanitizer_cov_* callbacks: -fsanitize=fuzzer-no-link at link
  # time brings clang's sanitizer runtime, which has no-op defaults for them; the fuzz targets
  # link libFuzzer itself (-fsanitize=fuzzer), whose callbacks record the coverage.
  add_link_options(-fsanitize=fuzzer-no-link)
endif()

# portolan_fuzz_instrument(TARGET): coverage feedback for libFuzzer in TARGET's own code (no-op
# unless PORTOLAN_FUZZ).
function(portolan_fuzz_instrument target)
  if(PORTOLAN_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
