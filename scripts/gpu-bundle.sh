#!/usr/bin/env bash
# Makes gpu-bundle/: what scripts/gpu-check.sh runs on a GPU machine that has CUDA but none of
# Portolan's build dependencies (no Qt, no libonnx/protobuf, no network). A headless Release build
# (-DPORTOLAN_BUILD_GUI=OFF) into build-gpu/, its CLI and CUDA test programs stripped, and every
# shared library they load copied beside them (found with ldd), except the C library, the GPU
# driver and CUDA's own libraries, which the GPU machine has and must match its driver.
# The folder is packed into gpu-bundle.tar.xz (about 32 MB: oneDNN and ICU's data make the folder
# 134 MB), what to carry along; gpu-check.sh unpacks it, replacing any folder unpacked before.
# Usage: scripts/gpu-bundle.sh        (then carry gpu-bundle.tar.xz to the GPU machine with the tree)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
if [[ ! -f build-gpu/build.ninja ]]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTOLAN_BUILD_GUI=OFF
fi
programs=(portolan tst_CudaDevices tst_CudaLaunch tst_CudaKernelPlans tst_CudaExecutor bench_cuda)
cmake --build build-gpu -j"${PORTOLAN_JOBS:-$(nproc)}" --target "${programs[@]}"

rm -rf gpu-bundle
mkdir -p gpu-bundle/bin gpu-bundle/lib
for p in "${programs[@]}"; do
  found=$(find build-gpu -type f -name "$p" -perm -u+x | head -n 1)
  [[ -n "$found" ]] || { echo "gpu-bundle: $p was not built" >&2; exit 1; }
  strip -o "gpu-bundle/bin/$p" "$found"
done
# the libraries: everything ldd resolves, but the loader, libc and friends, the driver and CUDA's
ldd gpu-bundle/bin/* | awk '/=> \// { print $3 }' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libcuda.so*|libnvidia*|libcublas*|libcudart*|libcudnn*) ;;
    *) cp -L "$lib" gpu-bundle/lib/ ;;
  esac
done
strip --strip-unneeded gpu-bundle/lib/* 2>/dev/null || true
# ONNX's node tests (Debian's libonnx-testdata, 27 MB, a few MB packed): conform --executor cuda
cp -r /usr/share/libonnx-testdata/data/node gpu-bundle/onnx-node
git rev-parse --short HEAD > gpu-bundle/REVISION
tar -cJf gpu-bundle.tar.xz gpu-bundle
du -sh gpu-bundle gpu-bundle.tar.xz
