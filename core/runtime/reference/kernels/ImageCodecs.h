// The decoders behind ImageDecoder, one per standard library: libjpeg-turbo, libpng, libtiff and
// OpenJPEG in ImageCodecs.cpp; libwebp and stb_image (BMP, binary PNM) in ImageDecoder.cpp, with the
// helpers declared here. None is a decoder of our own. Each yields 8-bit pixels as PIL (ONNX's
// reference) opens the file: [H, W, 1] for grey images, [H, W, 3] RGB for the rest, palettes expanded
// and alpha dropped. Each reads the header first and checks the image, and the memory the library
// will take by itself, against the memory cap before decoding any pixel.
#pragma once

#include "runtime/KernelContext.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace portolan::runtime::kernels {

/// a * b, or the largest uint64 when that overflows: sizes that are only compared with the memory cap.
inline std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b)
{
    constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    return b != 0 && a > most / b ? most : a * b;
}

// Shared by the decoders, defined in ImageDecoder.cpp:

/// "cannot decode the FORMAT stream: WHY", naming the node.
support::Error imageError(const KernelContext &ctx, const char *format, const std::string &why);

/// Fails unless `bytes` more would fit the memory cap now: what a library allocates by itself while
/// decoding (it never asks us), counted here, not allocated.
support::Status checkDecoderMemory(KernelContext &ctx, const char *format, std::uint64_t bytes);

/// The uint8 [height, width, channels] canvas, allocated once the header has given the dims and
/// before any pixel is decoded, after checking it and then `libraryBytes` against the memory cap.
support::Expected<Tensor> allocateImageCanvas(KernelContext &ctx, const char *format, std::uint64_t height,
                                              std::uint64_t width, int channels, std::uint64_t libraryBytes);

// Each decodes a whole stream whose magic bytes announced its format (ImageCodecs.cpp).
support::Expected<Tensor> decodeJpeg(KernelContext &ctx, std::span<const std::uint8_t> stream);
support::Expected<Tensor> decodePng(KernelContext &ctx, std::span<const std::uint8_t> stream);
support::Expected<Tensor> decodeTiff(KernelContext &ctx, std::span<const std::uint8_t> stream);
support::Expected<Tensor> decodeJpeg2000(KernelContext &ctx, std::span<const std::uint8_t> stream);

} // namespace portolan::runtime::kernels
