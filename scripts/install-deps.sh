#!/usr/bin/env bash
# Installs the Debian 12 packages Portolan needs to build and test; does nothing when all are present.
# Usage: scripts/install-deps.sh [--fixtures] [--sanitize]   (--fixtures adds PyTorch for regenerating
# tests/data; --sanitize adds clang, its sanitizer and libFuzzer runtimes and libomp for build-sanitize/;
# --conformance what tests/data/conformance/generate.py needs)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev qt6-charts-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libgl-dev libxkbcommon-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libgraphviz-dev libspdlog-dev libfmt-dev libdnnl-dev zlib1g-dev nlohmann-json3-dev
  libre2-dev # RegexFullMatch-20: the spec's regex syntax is RE2's
  libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev libstb-dev # ImageDecoder-20
  ocl-icd-opencl-dev # only Recommended by libdnnl-dev, yet its CMake config requires OpenCL (GPU runtime OCL)
  poppler-utils # the tests render the PDF report
)
# ONNX Runtime (`compare --b ort`, and the tests that use it) runs on Node.js; a machine that has its
# own node keeps it
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
for option in "$@"; do
  case "$option" in
    --fixtures) packages+=(python3-torch python3-torchvision python3-onnx python3-numpy) ;;
    --sanitize) packages+=(clang libclang-rt-14-dev libomp-14-dev) ;;
    --conformance) packages+=(python3-onnx python3-numpy python3-pil) ;; # onnxruntime-node comes from npm
    *) echo "install-deps: unknown option '$option'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "Installing: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: these packages are missing and installing them needs root (no sudo here):" >&2
    echo "  apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
