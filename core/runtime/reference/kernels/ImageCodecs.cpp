// ImageDecoder's decoders over the libraries that need the most setup, configured the way PIL
// (ONNX's reference implementation) uses them, so that the pixels agree with it bit for bit:
//   JPEG       libjpeg-turbo, its defaults (ISLOW IDCT, "fancy" upsampling: the spec's chroma rule)
//   PNG        libpng, no gamma or colour management (PIL applies none)
//   TIFF       libtiff's RGBA interface (every photometric libtiff knows), first directory only
//   JPEG 2000  OpenJPEG, JP2 files and raw J2K codestreams
// libjpeg and libpng report errors by calling a function that must not return: ours longjmp back to
// a setjmp in a function of this file that holds no object with a destructor (jumping over one would
// skip it), so each library session is split into such phases with the C++ work between them.
#include "runtime/reference/kernels/ImageCodecs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <jpeglib.h> // after <cstdio>: it uses FILE and size_t without including them
#include <jerror.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>

namespace portolan::runtime::kernels {

// ---- JPEG (libjpeg-turbo) -------------------------------------------------------------------------

namespace {

constexpr int kMaxJpegScans = 1000; // each progressive scan revisits every coefficient: more is hostile

struct JpegJob {
    jpeg_decompress_struct info{};
    jpeg_error_mgr errors{};
    jpeg_progress_mgr progress{};
    std::jmp_buf jump{};
    char message[JMSG_LENGTH_MAX]{};
    bool truncated = false;
    bool multipleScans = false;
};

JpegJob &jpegJob(j_common_ptr info) { return *static_cast<JpegJob *>(info->client_data); }

[[noreturn]] void jpegFail(j_common_ptr info)
{
    JpegJob &job = jpegJob(info);
    (*info->err->format_message)(info, job.message);
    std::longjmp(job.jump, 1);
}

// Warnings (corrupt but recoverable data) are decoded through, as PIL does; running out of data is not:
// libjpeg would fill the rest of the image with grey, where PIL reports a truncated file.
void jpegMessage(j_common_ptr info, int level)
{
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF)
        jpegJob(info).truncated = true;
}

void jpegProgress(j_common_ptr info)
{
    const auto *decompress = reinterpret_cast<j_decompress_ptr>(info);
    if (decompress->input_scan_number > kMaxJpegScans) {
        JpegJob &job = jpegJob(info);
        std::snprintf(job.message, sizeof job.message, "more than %d scans", kMaxJpegScans);
        std::longjmp(job.jump, 1);
    }
}

bool jpegReadHeader(JpegJob &job, const std::uint8_t *data, std::size_t size)
{
    if (setjmp(job.jump) != 0)
        return false;
    jpeg_create_decompress(&job.info);
    job.info.progress = &job.progress;
    jpeg_mem_src(&job.info, data, static_cast<unsigned long>(size));
    jpeg_read_header(&job.info, TRUE);
    job.multipleScans = jpeg_has_multiple_scans(&job.info) != 0;
    return true;
}

/// PIL's CMYK → RGB: with white = 255 - K, each channel is white - ink * white / 255, the division
/// rounded as PIL's MULDIV255 does. `inverted`: Adobe's convention, where a stored s means ink 255 - s
/// (PIL reads every CMYK JPEG so: its "CMYK;I").
void cmykToRgb(const std::uint8_t *cmyk, std::uint8_t *rgb, std::size_t width, bool inverted)
{
    for (std::size_t x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
        const int white = inverted ? cmyk[3] : 255 - cmyk[3];
        for (int c = 0; c < 3; ++c) {
            const int t = (inverted ? 255 - cmyk[c] : cmyk[c]) * white + 128;
            rgb[c] = static_cast<std::uint8_t>(white - (((t >> 8) + t) >> 8));
        }
    }
}

bool jpegReadPixels(JpegJob &job, std::uint8_t *canvas, int channels, std::uint8_t *cmykRow)
{
    if (setjmp(job.jump) != 0)
        return false;
    jpeg_start_decompress(&job.info);
    if (job.info.output_width != job.info.image_width || job.info.output_height != job.info.image_height ||
        job.info.output_components != (cmykRow != nullptr ? 4 : channels)) {
        std::snprintf(job.message, sizeof job.message, "libjpeg chose an unexpected output layout");
        return false;
    }
    const std::size_t rowBytes = static_cast<std::size_t>(job.info.output_width) * static_cast<std::size_t>(channels);
    while (job.info.output_scanline < job.info.output_height) {
        std::uint8_t *row = canvas + job.info.output_scanline * rowBytes;
        JSAMPROW target = cmykRow != nullptr ? cmykRow : row;
        if (jpeg_read_scanlines(&job.info, &target, 1) != 1) {
            std::snprintf(job.message, sizeof job.message, "libjpeg returned no scanline");
            return false;
        }
        if (cmykRow != nullptr)
            cmykToRgb(cmykRow, row, job.info.output_width, true);
    }
    jpeg_finish_decompress(&job.info);
    return true;
}

} // namespace

support::Expected<Tensor> decodeJpeg(KernelContext &ctx, std::span<const std::uint8_t> stream)
{
    JpegJob job;
    job.info.err = jpeg_std_error(&job.errors);
    job.errors.error_exit = jpegFail;
    job.errors.emit_message = jpegMessage;
    job.info.client_data = &job;
    job.progress.progress_monitor = jpegProgress;
    struct Destroy {
        JpegJob &job;
        ~Destroy() { jpeg_destroy_decompress(&job.info); } // safe on a never-created (zeroed) struct
    } destroy{job};

    if (!jpegReadHeader(job, stream.data(), stream.size()))
        return imageError(ctx, "JPEG", job.message);
    int channels = 3;
    bool cmyk = false;
    switch (job.info.jpeg_color_space) {
    case JCS_GRAYSCALE: job.info.out_color_space = JCS_GRAYSCALE; channels = 1; break;
    case JCS_CMYK:
    case JCS_YCCK: job.info.out_color_space = JCS_CMYK; cmyk = true; break;
    default: job.info.out_color_space = JCS_RGB; break; // YCbCr and RGB; libjpeg refuses the rest itself
    }
    // libjpeg's own memory: a coefficient buffer of the whole image for progressive and multi-scan
    // files, else a few rows of every component
    const auto components = static_cast<std::uint64_t>(job.info.num_components);
    std::uint64_t libraryBytes = saturatingProduct(saturatingProduct(job.info.image_width, components), 64);
    if (job.multipleScans)
        for (int c = 0; c < job.info.num_components && job.info.comp_info != nullptr; ++c) {
            const jpeg_component_info &component = job.info.comp_info[c];
            const std::uint64_t blocks = saturatingProduct(component.width_in_blocks, component.height_in_blocks);
            libraryBytes += saturatingProduct(blocks, DCTSIZE2 * sizeof(JCOEF));
        }
    auto canvas = allocateImageCanvas(ctx, "JPEG", job.info.image_height, job.info.image_width, channels, libraryBytes);
    if (!canvas)
        return canvas;
    // the same bound for libjpeg's memory manager, which refuses (it has no backing store) beyond it
    job.info.mem->max_memory_to_use =
        static_cast<long>(std::min<std::uint64_t>(libraryBytes + (8u << 20), std::numeric_limits<long>::max()));
    Tensor cmykRow;
    if (cmyk) {
        auto row = ctx.allocateUninitialized(onnx::TensorProto::UINT8, {static_cast<std::int64_t>(job.info.image_width), 4});
        if (!row)
            return row;
        cmykRow = std::move(*row);
    }
    if (!jpegReadPixels(job, canvas->mutableData<std::uint8_t>(), channels,
                        cmyk ? cmykRow.mutableData<std::uint8_t>() : nullptr))
        return imageError(ctx, "JPEG", job.message);
    if (job.truncated)
        return imageError(ctx, "JPEG", "the stream ends before the image does (libjpeg: Premature end of JPEG file)");
    return canvas;
}

// ---- PNG (libpng) ---------------------------------------------------------------------------------

namespace {

struct PngJob {
    png_structp png = nullptr;
    png_infop info = nullptr;
    const std::uint8_t *data = nullptr;
    std::size_t size = 0;
    std::size_t at = 0;
    std::jmp_buf jump{};
    char message[256]{};
    png_uint_32 width = 0;
    png_uint_32 height = 0;
    int channels = 0;
    int passes = 1;
};

[[noreturn]] void pngFail(png_structp png, png_const_charp what)
{
    auto *job = static_cast<PngJob *>(png_get_error_ptr(png));
    std::snprintf(job->message, sizeof job->message, "%s", what);
    std::longjmp(job->jump, 1);
}

void pngWarn(png_structp, png_const_charp) {} // problems in ancillary chunks, which PIL skips as well

void pngRead(png_structp png, png_bytep out, png_size_t count)
{
    auto *job = static_cast<PngJob *>(png_get_io_ptr(png));
    if (count > job->size - job->at)
        png_error(png, "the stream ends before the image does");
    std::memcpy(out, job->data + job->at, count);
    job->at += count;
}

bool pngReadHeader(PngJob &job)
{
    if (setjmp(job.jump) != 0)
        return false;
    job.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, pngFail, pngWarn);
    job.info = job.png != nullptr ? png_create_info_struct(job.png) : nullptr;
    if (job.info == nullptr) {
        std::snprintf(job.message, sizeof job.message, "libpng could not start (out of memory)");
        return false;
    }
    png_set_user_limits(job.png, 0x7fffffff, 0x7fffffff); // the memory cap decides, not libpng's 1M default
    png_set_read_fn(job.png, &job, pngRead);
    png_read_info(job.png, job.info);
    const int depth = png_get_bit_depth(job.png, job.info);
    const int colour = png_get_color_type(job.png, job.info);
    // as PIL: palettes expanded, 1/2/4-bit grey scaled to 8 bits, 16 bits cut to their high byte,
    // alpha (and tRNS transparency) dropped, grey kept grey; no gamma or colour transforms
    if (colour == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(job.png);
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(job.png);
    if (depth == 16)
        png_set_strip_16(job.png);
    png_set_strip_alpha(job.png);
    job.passes = png_set_interlace_handling(job.png);
    png_read_update_info(job.png, job.info);
    job.width = png_get_image_width(job.png, job.info);
    job.height = png_get_image_height(job.png, job.info);
    job.channels = png_get_channels(job.png, job.info);
    if (png_get_bit_depth(job.png, job.info) != 8 || (job.channels != 1 && job.channels != 3) ||
        png_get_rowbytes(job.png, job.info) != static_cast<std::size_t>(job.width) * static_cast<std::size_t>(job.channels)) {
        std::snprintf(job.message, sizeof job.message, "libpng gives an unexpected row layout");
        return false;
    }
    return true;
}

bool pngReadPixels(PngJob &job, std::uint8_t *canvas)
{
    if (setjmp(job.jump) != 0)
        return false;
    const std::size_t rowBytes = static_cast<std::size_t>(job.width) * static_cast<std::size_t>(job.channels);
    // an interlaced image passes over every row once per pass, each pass filling in its pixels
    for (int pass = 0; pass < job.passes; ++pass)
        for (png_uint_32 y = 0; y < job.height; ++y)
            png_read_row(job.png, canvas + y * rowBytes, nullptr);
    return true;
}

} // namespace

support::Expected<Tensor> decodePng(KernelContext &ctx, std::span<const std::uint8_t> stream)
{
    PngJob job;
    job.data = stream.data();
    job.size = stream.size();
    struct Destroy {
        PngJob &job;
        ~Destroy()
        {
            if (job.png != nullptr)
                png_destroy_read_struct(&job.png, job.info != nullptr ? &job.info : nullptr, nullptr);
        }
    } destroy{job};
    if (!pngReadHeader(job))
        return imageError(ctx, "PNG", job.message);
    // libpng's own memory: two rows at the file's depth plus zlib's window
    const std::uint64_t libraryBytes = saturatingProduct(job.width, 16) + (1u << 16);
    auto canvas = allocateImageCanvas(ctx, "PNG", job.height, job.width, job.channels, libraryBytes);
    if (!canvas)
        return canvas;
    if (!pngReadPixels(job, canvas->mutableData<std::uint8_t>()))
        return imageError(ctx, "PNG", job.message);
    return canvas;
}

// ---- TIFF (libtiff) -------------------------------------------------------------------------------

namespace {

struct MemoryStream {
    const std::uint8_t *data = nullptr;
    std::uint64_t size = 0;
    std::uint64_t at = 0;
    char message[512]{}; // the first error the library reports: the later ones follow from it

    void record(const char *text)
    {
        if (message[0] == '\0')
            std::snprintf(message, sizeof message, "%s", text);
    }
    std::uint64_t left() const { return at < size ? size - at : 0; }
};

tmsize_t tiffRead(thandle_t handle, void *out, tmsize_t count)
{
    auto *s = static_cast<MemoryStream *>(handle);
    const std::uint64_t n = count > 0 ? std::min<std::uint64_t>(static_cast<std::uint64_t>(count), s->left()) : 0;
    if (n > 0)
        std::memcpy(out, s->data + s->at, n);
    s->at += n;
    return static_cast<tmsize_t>(n);
}

tmsize_t tiffWrite(thandle_t, void *, tmsize_t) { return -1; }

toff_t tiffSeek(thandle_t handle, toff_t offset, int whence)
{
    auto *s = static_cast<MemoryStream *>(handle);
    const std::uint64_t base = whence == SEEK_CUR ? s->at : whence == SEEK_END ? s->size : 0;
    s->at = base + offset; // unsigned wrap-around makes a negative relative offset move back
    return s->at;
}

int tiffClose(thandle_t) { return 0; }
toff_t tiffSize(thandle_t handle) { return static_cast<MemoryStream *>(handle)->size; }
int tiffMap(thandle_t, void **, toff_t *) { return 0; }
void tiffUnmap(thandle_t, void *, toff_t) {}

int tiffError(TIFF *, void *user, const char *, const char *format, va_list args)
{
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    static_cast<MemoryStream *>(user)->record(text);
    return 1; // handled: libtiff must not print it
}

int tiffWarning(TIFF *, void *, const char *, const char *, va_list) { return 1; } // unknown tags and the like

} // namespace

support::Expected<Tensor> decodeTiff(KernelContext &ctx, std::span<const std::uint8_t> stream)
{
    MemoryStream source;
    source.data = stream.data();
    source.size = stream.size();
    std::unique_ptr<TIFFOpenOptions, decltype(&TIFFOpenOptionsFree)> options(TIFFOpenOptionsAlloc(), TIFFOpenOptionsFree);
    if (!options)
        return imageError(ctx, "TIFF", "libtiff could not start (out of memory)");
    TIFFOpenOptionsSetErrorHandlerExtR(options.get(), tiffError, &source);
    TIFFOpenOptionsSetWarningHandlerExtR(options.get(), tiffWarning, &source);
    std::unique_ptr<TIFF, decltype(&TIFFClose)> tiff(
        TIFFClientOpenExt("encoded_stream", "rm", &source, tiffRead, tiffWrite, tiffSeek, tiffClose, tiffSize,
                          tiffMap, tiffUnmap, options.get()),
        TIFFClose);
    if (!tiff)
        return imageError(ctx, "TIFF", source.message[0] != '\0' ? source.message : "libtiff could not open it");
    std::uint32_t width = 0, height = 0;
    TIFFGetField(tiff.get(), TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tiff.get(), TIFFTAG_IMAGELENGTH, &height);
    // libtiff's RGBA interface premultiplies unassociated alpha and converts CMYK with its own rounding;
    // PIL does neither (it drops the alpha as stored and converts CMYK as for JPEG). So the directory is
    // relabelled in memory to make libtiff hand over the stored samples: alpha marked associated (then
    // copied as is), CMYK marked RGB plus alpha (C, M, Y, K come back as R, G, B, A).
    std::uint16_t photometric = 0, inkSet = INKSET_CMYK, samples = 1, extraCount = 0;
    std::uint16_t *extraKinds = nullptr;
    TIFFGetField(tiff.get(), TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_INKSET, &inkSet);
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_EXTRASAMPLES, &extraCount, &extraKinds);
    std::uint16_t extras[8] = {};
    const bool cmyk = photometric == PHOTOMETRIC_SEPARATED && inkSet == INKSET_CMYK && samples == extraCount + 4;
    // associated (premultiplied) alpha, which PIL divides out when it reads the file ("RGBa")
    const bool premultiplied = !cmyk && extraCount > 0 && extraKinds[0] == EXTRASAMPLE_ASSOCALPHA;
    const int offset = cmyk ? 1 : 0;
    bool relabel = cmyk;
    if (extraCount + offset > 8)
        return imageError(ctx, "TIFF", "more than 7 extra samples per pixel");
    extras[0] = EXTRASAMPLE_ASSOCALPHA; // K, when cmyk
    for (std::uint16_t i = 0; i < extraCount; ++i) {
        relabel = relabel || extraKinds[i] == EXTRASAMPLE_UNASSALPHA;
        extras[i + offset] = extraKinds[i] == EXTRASAMPLE_UNASSALPHA ? EXTRASAMPLE_ASSOCALPHA : extraKinds[i];
    }
    const auto relabelledCount = static_cast<std::uint16_t>(extraCount + offset);
    if (relabel && ((cmyk && TIFFSetField(tiff.get(), TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB) == 0) ||
                    TIFFSetField(tiff.get(), TIFFTAG_EXTRASAMPLES, relabelledCount, extras) == 0))
        return imageError(ctx, "TIFF", source.message[0] != '\0' ? source.message : "libtiff refused to relabel its samples");
    char why[1024] = {};
    if (TIFFRGBAImageOK(tiff.get(), why) == 0)
        return imageError(ctx, "TIFF", why);
    // libtiff's own memory: one decoded strip or tile (of every plane) and its compressed bytes
    std::uint16_t planar = PLANARCONFIG_CONTIG;
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_PLANARCONFIG, &planar);
    const std::uint64_t block = TIFFIsTiled(tiff.get()) ? TIFFTileSize64(tiff.get()) : TIFFStripSize64(tiff.get());
    const std::uint64_t planes = planar == PLANARCONFIG_SEPARATE ? samples : 1;
    const std::uint64_t libraryBytes = saturatingProduct(saturatingProduct(block, planes), 2);
    // PIL turns the image upright by its Orientation tag (TiffImagePlugin.load_end); libtiff's RGBA
    // reader only flips, so it is asked for the file's own orientation (rows in stored order, nothing
    // flipped) and the whole transform, transposes included, is applied below.
    std::uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_ORIENTATION, &orientation);
    if (orientation < ORIENTATION_TOPLEFT || orientation > ORIENTATION_LEFTBOT)
        orientation = ORIENTATION_TOPLEFT; // PIL leaves an unknown value alone
    const bool transposed = orientation >= ORIENTATION_LEFTTOP;
    auto canvas = allocateImageCanvas(ctx, "TIFF", transposed ? width : height, transposed ? height : width, 3, libraryBytes);
    if (!canvas)
        return canvas;
    auto raster = ctx.allocateUninitialized(onnx::TensorProto::UINT32,
                                            {static_cast<std::int64_t>(height), static_cast<std::int64_t>(width)});
    if (!raster)
        return raster;
    if (TIFFReadRGBAImageOriented(tiff.get(), width, height, raster->mutableData<std::uint32_t>(), orientation, 1) == 0)
        return imageError(ctx, "TIFF", source.message[0] != '\0' ? source.message : "libtiff could not read the pixels");
    const std::uint32_t *abgr = raster->data<std::uint32_t>();
    std::uint8_t *rgb = canvas->mutableData<std::uint8_t>();
    const std::uint64_t rows = canvas->dim(0), columns = canvas->dim(1), h = height, w = width;
    for (std::uint64_t y = 0; y < rows; ++y)
        for (std::uint64_t x = 0; x < columns; ++x, rgb += 3) {
            // the stored pixel (sy, sx) that lands at (y, x), per PIL's transpose for each orientation
            std::uint64_t sy = y, sx = x;
            switch (orientation) {
            case ORIENTATION_TOPRIGHT: sx = w - 1 - x; break;                  // flip left-right
            case ORIENTATION_BOTRIGHT: sy = h - 1 - y; sx = w - 1 - x; break;  // rotate 180
            case ORIENTATION_BOTLEFT: sy = h - 1 - y; break;                   // flip top-bottom
            case ORIENTATION_LEFTTOP: sy = x; sx = y; break;                   // transpose
            case ORIENTATION_RIGHTTOP: sy = h - 1 - x; sx = y; break;          // rotate 90 clockwise
            case ORIENTATION_RIGHTBOT: sy = h - 1 - x; sx = w - 1 - y; break;  // transverse
            case ORIENTATION_LEFTBOT: sy = x; sx = w - 1 - y; break;           // rotate 90 anticlockwise
            default: break;
            }
            const std::uint32_t p = abgr[sy * w + sx];
            std::uint8_t sample[4] = {static_cast<std::uint8_t>(TIFFGetR(p)), static_cast<std::uint8_t>(TIFFGetG(p)),
                                      static_cast<std::uint8_t>(TIFFGetB(p)), static_cast<std::uint8_t>(TIFFGetA(p))};
            if (premultiplied && sample[3] != 255) // PIL's unpremultiply: min(255, c * 255 / a), 0 where a = 0
                for (int c = 0; c < 3; ++c)
                    sample[c] = sample[3] == 0 ? 0 : static_cast<std::uint8_t>(std::min(255, sample[c] * 255 / sample[3]));
            if (cmyk)
                cmykToRgb(sample, rgb, 1, false);
            else
                std::memcpy(rgb, sample, 3);
        }
    return canvas;
}

// ---- JPEG 2000 (OpenJPEG) -------------------------------------------------------------------------

namespace {

OPJ_SIZE_T opjRead(void *out, OPJ_SIZE_T count, void *user)
{
    auto *s = static_cast<MemoryStream *>(user);
    const std::uint64_t n = std::min<std::uint64_t>(count, s->left());
    if (n == 0)
        return static_cast<OPJ_SIZE_T>(-1); // OpenJPEG's end of stream
    std::memcpy(out, s->data + s->at, n);
    s->at += n;
    return static_cast<OPJ_SIZE_T>(n);
}

OPJ_OFF_T opjSkip(OPJ_OFF_T count, void *user)
{
    auto *s = static_cast<MemoryStream *>(user);
    if (count < 0 && std::uint64_t(0) - static_cast<std::uint64_t>(count) > s->at)
        return -1;
    s->at += static_cast<std::uint64_t>(count); // past the end: the next read reports the end
    return count;
}

OPJ_BOOL opjSeek(OPJ_OFF_T offset, void *user)
{
    auto *s = static_cast<MemoryStream *>(user);
    if (offset < 0 || static_cast<std::uint64_t>(offset) > s->size)
        return OPJ_FALSE;
    s->at = static_cast<std::uint64_t>(offset);
    return OPJ_TRUE;
}

void opjError(const char *text, void *user)
{
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
        line.pop_back();
    static_cast<MemoryStream *>(user)->record(line.c_str());
}

void opjQuiet(const char *, void *) {}

const char *opjSpaceName(OPJ_COLOR_SPACE space)
{
    switch (space) {
    case OPJ_CLRSPC_SRGB: return "sRGB";
    case OPJ_CLRSPC_GRAY: return "grey";
    case OPJ_CLRSPC_SYCC: return "sYCC";
    case OPJ_CLRSPC_EYCC: return "e-YCC";
    case OPJ_CLRSPC_CMYK: return "CMYK";
    default: return "unknown";
    }
}

/// PIL's sample → 8 bits: signed samples offset to unsigned, deeper ones shifted down rounding half
/// up (saturated, where PIL would wrap 255.5 to 0), shallower ones shifted up.
std::uint8_t opjTo8Bits(std::int64_t value, const opj_image_comp_t &component)
{
    const int precision = static_cast<int>(component.prec);
    if (component.sgnd != 0)
        value += std::int64_t(1) << (precision - 1);
    value = std::clamp<std::int64_t>(value, 0, (std::int64_t(1) << precision) - 1);
    if (precision > 8)
        value = std::min<std::int64_t>((value + (std::int64_t(1) << (precision - 9))) >> (precision - 8), 255);
    else
        value <<= 8 - precision;
    return static_cast<std::uint8_t>(value);
}

} // namespace

support::Expected<Tensor> decodeJpeg2000(KernelContext &ctx, std::span<const std::uint8_t> stream)
{
    MemoryStream source;
    source.data = stream.data();
    source.size = stream.size();
    const bool codestream = stream[0] == 0xFF; // FF 4F FF 51: a bare J2K codestream, else a JP2 file
    std::unique_ptr<opj_stream_t, decltype(&opj_stream_destroy)> input(opj_stream_create(1 << 16, OPJ_TRUE), opj_stream_destroy);
    std::unique_ptr<opj_codec_t, decltype(&opj_destroy_codec)> codec(
        opj_create_decompress(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2), opj_destroy_codec);
    if (!input || !codec)
        return imageError(ctx, "JPEG 2000", "OpenJPEG could not start (out of memory)");
    opj_stream_set_read_function(input.get(), opjRead);
    opj_stream_set_skip_function(input.get(), opjSkip);
    opj_stream_set_seek_function(input.get(), opjSeek);
    opj_stream_set_user_data(input.get(), &source, nullptr);
    opj_stream_set_user_data_length(input.get(), source.size);
    opj_set_error_handler(codec.get(), opjError, &source);
    opj_set_warning_handler(codec.get(), opjQuiet, nullptr);
    opj_set_info_handler(codec.get(), opjQuiet, nullptr);
    opj_dparameters_t parameters;
    opj_set_default_decoder_parameters(&parameters);
    auto failed = [&](const char *fallback) {
        return imageError(ctx, "JPEG 2000", source.message[0] != '\0' ? source.message : fallback);
    };
    if (opj_setup_decoder(codec.get(), &parameters) == OPJ_FALSE)
        return failed("OpenJPEG refused its decoder parameters");
    opj_image_t *header = nullptr;
    const bool read = opj_read_header(input.get(), codec.get(), &header) != OPJ_FALSE;
    std::unique_ptr<opj_image_t, decltype(&opj_image_destroy)> image(header, opj_image_destroy);
    if (!read || !image)
        return failed("OpenJPEG could not read the header");
    if (image->x1 <= image->x0 || image->y1 <= image->y0)
        return failed("its header gives an empty image");
    const std::uint64_t width = image->x1 - image->x0, height = image->y1 - image->y0;
    for (OPJ_UINT32 c = 0; c < image->numcomps; ++c)
        if (image->comps[c].dx != 1 || image->comps[c].dy != 1)
            return imageError(ctx, "JPEG 2000", "component " + std::to_string(c) +
                                                    " is subsampled; as in PIL, only full-resolution components are decoded");
    // Checked before decoding: OpenJPEG's 32-bit planes (twice, with its tile buffers) and a 3-channel
    // canvas; the layout is known only after decoding, which expands a JP2 palette.
    const std::uint64_t pixels = saturatingProduct(width, height);
    const std::uint64_t planes = saturatingProduct(pixels, std::max<OPJ_UINT32>(image->numcomps, 3));
    if (auto st = checkDecoderMemory(ctx, "JPEG 2000", saturatingProduct(pixels, 3) + saturatingProduct(planes, 8)); !st)
        return st.error();
    if (opj_decode(codec.get(), input.get(), image.get()) == OPJ_FALSE ||
        opj_end_decompress(codec.get(), input.get()) == OPJ_FALSE)
        return failed("OpenJPEG could not decode it");
    // PIL's layouts: grey (+ alpha) or sRGB (+ alpha), guessed from the count when unspecified
    const OPJ_UINT32 count = image->numcomps;
    OPJ_COLOR_SPACE space = image->color_space;
    if (space == OPJ_CLRSPC_UNSPECIFIED)
        space = count <= 2 ? OPJ_CLRSPC_GRAY : OPJ_CLRSPC_SRGB;
    const bool grey = space == OPJ_CLRSPC_GRAY && (count == 1 || count == 2);
    if (!grey && !(space == OPJ_CLRSPC_SRGB && (count == 3 || count == 4)))
        return imageError(ctx, "JPEG 2000", std::string("colour space ") + opjSpaceName(space) + " with " +
                                                std::to_string(count) +
                                                " components is not grey(+alpha) or sRGB(+alpha), the layouts PIL decodes");
    const int channels = grey ? 1 : 3;
    for (int c = 0; c < channels; ++c) {
        const opj_image_comp_t &component = image->comps[c];
        if (component.data == nullptr || component.w != width || component.h != height || component.prec < 1 ||
            component.prec > 31)
            return imageError(ctx, "JPEG 2000", "component " + std::to_string(c) + " does not cover the image at 1 to 31 bits");
    }
    auto canvas = allocateImageCanvas(ctx, "JPEG 2000", height, width, channels, 0);
    if (!canvas)
        return canvas;
    std::uint8_t *out = canvas->mutableData<std::uint8_t>();
    for (std::uint64_t i = 0; i < pixels; ++i)
        for (int c = 0; c < channels; ++c)
            out[i * static_cast<std::uint64_t>(channels) + static_cast<std::uint64_t>(c)] =
                opjTo8Bits(image->comps[c].data[i], image->comps[c]);
    return canvas;
}

} // namespace portolan::runtime::kernels
