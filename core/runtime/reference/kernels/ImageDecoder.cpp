// ImageDecoder (opset 20): one encoded image file (a 1-D uint8 tensor) → uint8 [H, W, C], channels
// last, in pixel_format's order: RGB or BGR (C = 3) or Grayscale (C = 1). The format is found from the
// magic bytes and decoded by its standard library (ImageCodecs.cpp; libwebp, and stb_image for BMP
// and binary PNM, here), matching ONNX's reference implementation, which opens the file with PIL:
//  - colour images come out RGB with palettes expanded and alpha dropped (PIL's convert("RGB")); grey
//    ones are repeated into the three channels. (The reference's np.array(img) would instead return a
//    palette's indices, or 2 or 4 channels for grey or alpha images: no fixed layout an output could
//    have, so the kernel gives the RGB image the op's documentation describes.)
//  - Grayscale is PIL's convert("L") of that RGB image: L = (19595 R + 38470 G + 7471 B + 2^15) >> 16,
//    ITU-R 601 weights in 16-bit fixed point, rounded half up. Grey sources pass through unchanged
//    (the weights sum to 2^16).
// A stream no decoder accepts is an error naming the format and the library's message. (The spec
// says such a stream gives "an empty matrix", the reference raises; an oracle must not hide it.)
#include "runtime/reference/kernels/ImageCodecs.h"
#include "runtime/Dispatch.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <stb_image.h>
#include <webp/decode.h>

namespace portolan::runtime::kernels {

// ---- shared by the decoders (declared in ImageCodecs.h) ------------------------------------------

support::Error imageError(const KernelContext &ctx, const char *format, const std::string &why)
{
    return ctx.error(std::string("cannot decode the ") + format + " stream: " + why);
}

support::Status checkDecoderMemory(KernelContext &ctx, const char *format, std::uint64_t bytes)
{
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (bytes == 0)
        return support::Status::ok();
    if (bytes > limit || !ctx.bytesWithinBudget(onnx::TensorProto::UINT8, {static_cast<std::int64_t>(bytes)}))
        return imageError(ctx, format,
                          "its decoder would need about " + std::to_string(bytes) +
                              " bytes of working memory, over the memory cap (raise it with --max-memory)");
    return support::Status::ok();
}

support::Expected<Tensor> allocateImageCanvas(KernelContext &ctx, const char *format, std::uint64_t height,
                                              std::uint64_t width, int channels, std::uint64_t libraryBytes)
{
    if (height == 0 || width == 0)
        return imageError(ctx, format, "its header gives an empty image (" + std::to_string(width) + " x " +
                                           std::to_string(height) + ")");
    // every library caps dims far below this, so the casts are exact
    if (height > (1ULL << 40) || width > (1ULL << 40))
        return imageError(ctx, format, "its header gives absurd dims");
    const Shape shape{static_cast<std::int64_t>(height), static_cast<std::int64_t>(width), channels};
    auto canvas = ctx.allocateUninitialized(onnx::TensorProto::UINT8, shape);
    if (!canvas)
        return canvas;
    if (auto st = checkDecoderMemory(ctx, format, libraryBytes); !st)
        return st.error();
    return canvas;
}

namespace {

enum class ImageFormat { Unknown, Jpeg, Png, Bmp, Tiff, WebP, Pnm, Jpeg2000 };

const char *imageFormatName(ImageFormat format)
{
    switch (format) {
    case ImageFormat::Jpeg: return "JPEG";
    case ImageFormat::Png: return "PNG";
    case ImageFormat::Bmp: return "BMP";
    case ImageFormat::Tiff: return "TIFF";
    case ImageFormat::WebP: return "WebP";
    case ImageFormat::Pnm: return "PNM";
    case ImageFormat::Jpeg2000: return "JPEG 2000";
    case ImageFormat::Unknown: break;
    }
    return "unknown";
}

bool startsWith(std::span<const std::uint8_t> stream, std::initializer_list<int> magic, std::size_t at = 0)
{
    if (stream.size() < at + magic.size())
        return false;
    for (const int byte : magic)
        if (stream[at++] != byte)
            return false;
    return true;
}

/// The format its magic bytes announce; Unknown when none matches.
ImageFormat detectImageFormat(std::span<const std::uint8_t> stream)
{
    if (startsWith(stream, {0xFF, 0xD8, 0xFF}))
        return ImageFormat::Jpeg;
    if (startsWith(stream, {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}))
        return ImageFormat::Png;
    if (startsWith(stream, {'B', 'M'}))
        return ImageFormat::Bmp;
    if (startsWith(stream, {'I', 'I', 42, 0}) || startsWith(stream, {'M', 'M', 0, 42}) ||
        startsWith(stream, {'I', 'I', 43, 0}) || startsWith(stream, {'M', 'M', 0, 43})) // classic and BigTIFF
        return ImageFormat::Tiff;
    if (startsWith(stream, {'R', 'I', 'F', 'F'}) && startsWith(stream, {'W', 'E', 'B', 'P'}, 8))
        return ImageFormat::WebP;
    if (startsWith(stream, {0x00, 0x00, 0x00, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}) ||
        startsWith(stream, {0xFF, 0x4F, 0xFF, 0x51}))
        return ImageFormat::Jpeg2000;
    if (stream.size() >= 3 && stream[0] == 'P' && stream[1] >= '1' && stream[1] <= '6' && std::isspace(stream[2]) != 0)
        return ImageFormat::Pnm;
    return ImageFormat::Unknown;
}

// ---- WebP (libwebp) -------------------------------------------------------------------------------

const char *webpStatusText(VP8StatusCode status)
{
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "libwebp: out of memory";
    case VP8_STATUS_INVALID_PARAM: return "libwebp: invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "libwebp: bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "libwebp: unsupported feature";
    case VP8_STATUS_SUSPENDED: return "libwebp: suspended";
    case VP8_STATUS_USER_ABORT: return "libwebp: aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "libwebp: not enough data (truncated stream)";
    default: return "libwebp: unknown error";
    }
}

support::Expected<Tensor> decodeWebp(KernelContext &ctx, std::span<const std::uint8_t> stream)
{
    WebPDecoderConfig config;
    if (WebPInitDecoderConfig(&config) == 0)
        return imageError(ctx, "WebP", "libwebp version mismatch");
    if (const auto status = WebPGetFeatures(stream.data(), stream.size(), &config.input); status != VP8_STATUS_OK)
        return imageError(ctx, "WebP", webpStatusText(status));
    if (config.input.has_animation != 0)
        return imageError(ctx, "WebP", "it is an animation; only still WebP images are decoded");
    const auto width = static_cast<std::uint64_t>(config.input.width);
    const auto height = static_cast<std::uint64_t>(config.input.height);
    // libwebp's own memory: a lossless image is decoded to 32-bit ARGB first; an alpha plane is whole
    auto canvas = allocateImageCanvas(ctx, "WebP", height, width, 3, saturatingProduct(width * height, 4));
    if (!canvas)
        return canvas;
    // RGB straight into the canvas; libwebp's defaults (fancy upsampling, no dithering) as PIL's
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = canvas->mutableData<std::uint8_t>();
    config.output.u.RGBA.stride = static_cast<int>(width * 3);
    config.output.u.RGBA.size = static_cast<std::size_t>(canvas->size());
    const VP8StatusCode status = WebPDecode(stream.data(), stream.size(), &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK)
        return imageError(ctx, "WebP", webpStatusText(status));
    return canvas;
}

// ---- BMP and binary PNM (stb_image) ---------------------------------------------------------------

using StbPixels = std::unique_ptr<void, decltype(&stbi_image_free)>;

/// The maxval of a PGM/PPM header ("P5" or "P6", width, height, maxval, '#' comments to the end of
/// the line): stb_image does not rescale samples to it, so it is read here, and nothing else.
std::optional<std::uint32_t> pnmMaxval(std::span<const std::uint8_t> stream)
{
    std::size_t at = 2;
    std::uint64_t value = 0;
    for (int token = 0; token < 3; ++token) {
        while (at < stream.size() && (std::isspace(stream[at]) != 0 || stream[at] == '#'))
            if (stream[at++] == '#')
                while (at < stream.size() && stream[at] != '\n' && stream[at] != '\r')
                    ++at;
        const std::size_t start = at;
        for (value = 0; at < stream.size() && at - start < 10 && std::isdigit(stream[at]) != 0; ++at)
            value = value * 10 + static_cast<std::uint64_t>(stream[at] - '0');
        if (at == start)
            return std::nullopt;
    }
    if (value > std::numeric_limits<std::uint32_t>::max())
        return std::nullopt;
    return static_cast<std::uint32_t>(value);
}

/// Bits of R, G and B in a 16-bit BMP of one of the layouts PIL reads (5-5-5 plain or as bitfields,
/// 5-6-5 bitfields), read from the header; nullopt for every other BMP.
std::optional<std::array<int, 3>> bmp16BitLayout(std::span<const std::uint8_t> stream)
{
    auto le = [&](std::size_t at, int bytes) {
        std::uint32_t v = 0;
        for (int i = bytes - 1; i >= 0; --i)
            v = (v << 8) | stream[at + static_cast<std::size_t>(i)];
        return v;
    };
    if (stream.size() < 66 || le(14, 4) < 40 || le(28, 2) != 16)
        return std::nullopt;
    const std::uint32_t compression = le(30, 4);
    if (compression == 0) // BI_RGB
        return std::array<int, 3>{5, 5, 5};
    if (compression != 3) // BI_BITFIELDS: the R, G, B masks follow the 40-byte header
        return std::nullopt;
    const std::uint32_t red = le(54, 4), green = le(58, 4), blue = le(62, 4);
    if (red == 0xF800 && green == 0x07E0 && blue == 0x001F)
        return std::array<int, 3>{5, 6, 5};
    if (red == 0x7C00 && green == 0x03E0 && blue == 0x001F)
        return std::array<int, 3>{5, 5, 5};
    return std::nullopt;
}

/// Whether this stb_image returns 16-bit PNM samples in file (big-endian) byte order instead of as
/// numbers (stb 2.27 does; later versions swap them): probed once on a one-pixel PGM.
bool stbLeaves16BitPnmBigEndian()
{
    static const bool bigEndian = [] {
        const std::uint8_t probe[] = {'P', '5', ' ', '1', ' ', '1', ' ', '6', '5', '5', '3', '5', '\n', 0x01, 0x02};
        int w = 0, h = 0, c = 0;
        StbPixels pixel(stbi_load_16_from_memory(probe, sizeof probe, &w, &h, &c, 1), stbi_image_free);
        return pixel && *static_cast<const std::uint16_t *>(pixel.get()) != 0x0102;
    }();
    return bigEndian;
}

support::Expected<Tensor> decodeWithStb(KernelContext &ctx, ImageFormat format, std::span<const std::uint8_t> stream)
{
    const char *name = imageFormatName(format);
    if (stream.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        return imageError(ctx, name, "stb_image reads streams of at most 2 GiB");
    std::uint32_t maxval = 255;
    if (format == ImageFormat::Pnm) {
        if (stream[1] != '5' && stream[1] != '6')
            return imageError(ctx, name, std::string("it is P") + static_cast<char>(stream[1]) +
                                             "; only binary PGM and PPM (P5, P6) are decoded (stb_image)");
        const auto found = pnmMaxval(stream);
        if (!found || *found == 0 || *found > 65535)
            return imageError(ctx, name, "its header has no maxval from 1 to 65535");
        maxval = *found;
    }
    const int length = static_cast<int>(stream.size());
    int width = 0, height = 0, fileChannels = 0;
    if (stbi_info_from_memory(stream.data(), length, &width, &height, &fileChannels) == 0)
        return imageError(ctx, name, std::string("stb_image: ") + stbi_failure_reason());
    // a BMP always becomes RGB (palettes expanded, alpha dropped); a PNM keeps its 1 or 3 channels
    const int channels = format == ImageFormat::Bmp ? 3 : fileChannels == 1 ? 1 : 3;
    const bool wide = maxval > 255;
    const auto area = saturatingProduct(static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(height));
    const std::uint64_t count = saturatingProduct(area, static_cast<std::uint64_t>(channels));
    // stb's own memory: its decoded copy, which is then moved into the canvas
    auto canvas = allocateImageCanvas(ctx, name, static_cast<std::uint64_t>(height), static_cast<std::uint64_t>(width),
                                      channels, saturatingProduct(count, wide ? 2 : 1));
    if (!canvas)
        return canvas;
    int w = 0, h = 0, ignored = 0;
    void *samples = wide ? static_cast<void *>(stbi_load_16_from_memory(stream.data(), length, &w, &h, &ignored, channels))
                         : static_cast<void *>(stbi_load_from_memory(stream.data(), length, &w, &h, &ignored, channels));
    StbPixels decoded(samples, stbi_image_free);
    if (!decoded)
        return imageError(ctx, name, std::string("stb_image: ") + stbi_failure_reason());
    if (w != width || h != height)
        return imageError(ctx, name, "stb_image decoded other dims than its header gives");
    std::uint8_t *out = canvas->mutableData<std::uint8_t>();
    if (!wide && maxval == 255) {
        std::memcpy(out, decoded.get(), count);
        // stb widens a b-bit BMP channel by repeating its bits, PIL by v * 255 / (2^b - 1) truncated;
        // the top b bits of stb's byte are the stored value, so PIL's is recomputed from them
        if (const auto layout = format == ImageFormat::Bmp ? bmp16BitLayout(stream) : std::nullopt)
            for (std::uint64_t i = 0; i < count; ++i) {
                const int bits = (*layout)[i % 3];
                out[i] = static_cast<std::uint8_t>((out[i] >> (8 - bits)) * 255 / ((1 << bits) - 1));
            }
        return canvas;
    }
    const bool swap = wide && stbLeaves16BitPnmBigEndian();
    // PIL's rescaling of other maxvals: round(sample / maxval * 255) in double, ties to even
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint32_t sample = wide ? static_cast<const std::uint16_t *>(decoded.get())[i]
                                    : static_cast<const std::uint8_t *>(decoded.get())[i];
        if (swap)
            sample = ((sample & 0xFF) << 8) | (sample >> 8);
        const double scaled = std::nearbyint(static_cast<double>(std::min(sample, maxval)) / maxval * 255.0);
        out[i] = static_cast<std::uint8_t>(std::min(scaled, 255.0));
    }
    return canvas;
}

support::Expected<Tensor> decodeImage(KernelContext &ctx, ImageFormat format, std::span<const std::uint8_t> stream)
{
    switch (format) {
    case ImageFormat::Jpeg: return decodeJpeg(ctx, stream);
    case ImageFormat::Png: return decodePng(ctx, stream);
    case ImageFormat::Tiff: return decodeTiff(ctx, stream);
    case ImageFormat::WebP: return decodeWebp(ctx, stream);
    case ImageFormat::Jpeg2000: return decodeJpeg2000(ctx, stream);
    case ImageFormat::Bmp:
    case ImageFormat::Pnm: return decodeWithStb(ctx, format, stream);
    case ImageFormat::Unknown: break;
    }
    return ctx.error("encoded_stream is in no image format ImageDecoder decodes"); // not reached
}

/// The first bytes of the stream in hex, to show what an unrecognised stream is.
std::string leadingBytes(std::span<const std::uint8_t> stream)
{
    std::string text;
    for (std::size_t i = 0; i < stream.size() && i < 8; ++i) {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%02X", stream[i]);
        text += (i == 0 ? "" : " ") + std::string(hex);
    }
    return text;
}

} // namespace

support::Status imageDecoder(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &encoded = ctx.input(0);
    if (encoded.dataType() != TensorProto::UINT8)
        return ctx.error("encoded_stream must be a uint8 tensor");
    if (encoded.rank() != 1)
        return ctx.error("encoded_stream must be 1-D, got shape " + shapeString(encoded.shape()));
    const std::string pixelFormat = ctx.attrString("pixel_format", "RGB");
    if (pixelFormat != "RGB" && pixelFormat != "BGR" && pixelFormat != "Grayscale")
        return ctx.error("pixel_format \"" + pixelFormat + "\" is not RGB, BGR or Grayscale");
    const std::span<const std::uint8_t> stream(encoded.data<std::uint8_t>(), static_cast<std::size_t>(encoded.size()));
    if (stream.empty())
        return ctx.error("encoded_stream is empty");
    const ImageFormat format = detectImageFormat(stream);
    if (format == ImageFormat::Unknown)
        return ctx.error("encoded_stream is in no format ImageDecoder decodes (BMP, JPEG, JPEG 2000, TIFF, PNG, WebP, "
                         "PNM): it begins " + leadingBytes(stream));
    auto decoded = decodeImage(ctx, format, stream);
    if (!decoded)
        return decoded.takeError();
    Tensor canvas = std::move(*decoded); // [H, W, 1] grey or [H, W, 3] RGB, ours to change
    const std::int64_t height = canvas.dim(0), width = canvas.dim(1), pixels = height * width;
    const bool grey = canvas.dim(2) == 1;

    if (pixelFormat == "Grayscale") {
        if (!grey) {
            auto out = ctx.allocateUninitialized(TensorProto::UINT8, {height, width, 1});
            if (!out)
                return out.takeError();
            const std::uint8_t *rgb = canvas.data<std::uint8_t>();
            std::uint8_t *luma = out->mutableData<std::uint8_t>();
            for (std::int64_t i = 0; i < pixels; ++i, rgb += 3)
                luma[i] = static_cast<std::uint8_t>((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >> 16);
            canvas = std::move(*out);
        }
    } else if (grey) {
        auto out = ctx.allocateUninitialized(TensorProto::UINT8, {height, width, 3});
        if (!out)
            return out.takeError();
        const std::uint8_t *luma = canvas.data<std::uint8_t>();
        std::uint8_t *rgb = out->mutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < pixels; ++i, rgb += 3)
            rgb[0] = rgb[1] = rgb[2] = luma[i];
        canvas = std::move(*out);
    } else if (pixelFormat == "BGR") {
        std::uint8_t *rgb = canvas.mutableData<std::uint8_t>();
        for (std::int64_t i = 0; i < pixels; ++i, rgb += 3)
            std::swap(rgb[0], rgb[2]);
    }
    ctx.setOutput(0, std::move(canvas));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
