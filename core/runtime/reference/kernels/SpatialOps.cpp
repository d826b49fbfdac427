// Col2Im (opset 18): folds columns of blocks back into an N-D image, summing where blocks overlap.
// AffineGrid (opset 20): the 2-D or 3-D sampling grid of a batch of affine matrices, for GridSample.
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/Spatial.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <limits>
#include <string>
#include <type_traits>

namespace portolan::runtime::kernels {

namespace {

constexpr std::int64_t kMaxExtent = std::int64_t(1) << 32; // keeps the window arithmetic far from overflow

/// Product of non-negative `dims`, or -1 when it would pass int64.
std::int64_t checkedProduct(const Shape &dims)
{
    std::int64_t p = 1;
    for (const auto d : dims) {
        if (d != 0 && p > std::numeric_limits<std::int64_t>::max() / d)
            return -1;
        p *= d;
    }
    return p;
}

/// Sums every column value into its image position. `lanes` values make one element (2 for the
/// complex types, whose parts add independently); Acc is double for floats and uint64 for integers,
/// where the sum wraps as T's would.
template <typename T, typename Acc>
void foldColumns(const T *in, T *out, Acc *acc, const std::int64_t *table, std::int64_t images, std::int64_t taps,
                 std::int64_t positions, std::int64_t plane, std::int64_t lanes)
{
    for (std::int64_t img = 0; img < images; ++img) { // one (batch, channel) pair
        std::fill(acc, acc + plane * lanes, Acc(0));
        const T *col = in + img * taps * positions * lanes;
        for (std::int64_t tap = 0; tap < taps * positions; ++tap) {
            const std::int64_t at = table[tap];
            if (at < 0) // the tap falls on padding
                continue;
            for (std::int64_t j = 0; j < lanes; ++j)
                acc[at * lanes + j] += static_cast<Acc>(col[tap * lanes + j]);
        }
        T *dst = out + img * plane * lanes;
        for (std::int64_t i = 0; i < plane * lanes; ++i)
            dst[i] = static_cast<T>(acc[i]);
    }
}

} // namespace

// ---- Col2Im -------------------------------------------------------------------------------------------

support::Status col2Im(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    if (x.rank() != 3)
        return ctx.error("input must have rank 3, [N, C * prod(block_shape), L], got " + shapeString(x.shape()));
    auto image = integerList(ctx, ctx.input(1), "image_shape");
    if (!image)
        return image.takeError();
    auto block = integerList(ctx, ctx.input(2), "block_shape");
    if (!block)
        return block.takeError();
    if (image->empty() || image->size() != block->size())
        return ctx.error("image_shape " + shapeString(*image) + " and block_shape " + shapeString(*block) +
                         " must give one size per spatial axis, as many of each");
    for (const auto d : *image)
        if (d < 0 || d > kMaxExtent)
            return ctx.error("image_shape " + shapeString(*image) + " has a size outside [0, 2^32]");
    // The window reader below would honour auto_pad, which Col2Im does not have.
    if (ctx.attribute("auto_pad") != nullptr)
        return ctx.error("Col2Im has no auto_pad attribute");
    // Block positions are the output positions of a convolution of block_shape over the padded image.
    auto window = makeWindow(ctx, *image, *block, false);
    if (!window)
        return window.takeError();
    const std::int64_t rows = x.dim(1), columns = x.dim(2);
    const std::int64_t taps = checkedProduct(*block); // each size is in [1, 2^32] (makeWindow)
    if (taps <= 0 || rows % taps != 0)
        return ctx.error("input dim 1 (" + std::to_string(rows) + ") is not a multiple of prod(block_shape " +
                         shapeString(*block) + ")");
    const std::int64_t positions = checkedProduct(window->output);
    if (positions != columns)
        return ctx.error("input dim 2 (" + std::to_string(columns) + ") differs from the number of block positions " +
                         shapeString(window->output) + " that image_shape, block_shape, pads, dilations and strides give");
    const std::int64_t channels = rows / taps;
    Shape outShape{x.dim(0), channels};
    outShape.insert(outShape.end(), image->begin(), image->end());
    auto out = ctx.allocateUninitialized(x.dataType(), outShape); // foldColumns writes every element
    if (!out)
        return out.takeError();
    const std::int64_t plane = planeSize(*image);
    auto table = windowTable(ctx, *window, window->output, *image); // [taps, positions]: image offset or -1
    if (!table)
        return table.takeError();
    const std::int64_t *offsets = table->data<std::int64_t>();
    const std::int64_t images = x.dim(0) * channels;

    support::Status status;
    auto run = [&]<typename T>(std::int64_t lanes) {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::uint64_t>;
        auto scratch = ctx.allocateUninitialized(std::is_floating_point_v<T> ? TensorProto::DOUBLE : TensorProto::UINT64,
                                                 {plane * lanes});
        if (!scratch) {
            status = scratch.takeError();
            return;
        }
        foldColumns<T, Acc>(x.data<T>(), out->mutableData<T>(), scratch->template mutableData<Acc>(), offsets, images, taps,
                            positions, plane, lanes);
    };
    if (x.dataType() == TensorProto::COMPLEX64)
        run.template operator()<float>(2);
    else if (x.dataType() == TensorProto::COMPLEX128)
        run.template operator()<double>(2);
    else if (!visitNumeric(x.dataType(), [&]<typename T>() { run.template operator()<T>(1); }))
        // bool and string are in the spec's type list, but it defines no sum for them
        return ctx.error("cannot sum overlapping blocks of " + ir::dataTypeName(originalType) + " elements");
    if (!status)
        return status;
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

// ---- AffineGrid ---------------------------------------------------------------------------------------

support::Status affineGrid(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    if (!isFloatingType(originalType))
        return ctx.error("theta must be a floating-point tensor, got " + ir::dataTypeName(originalType));
    const std::int64_t alignCorners = ctx.attrInt("align_corners", 0);
    if (alignCorners != 0 && alignCorners != 1)
        return ctx.error("align_corners = " + std::to_string(alignCorners) + " is not 0 or 1");
    auto size = integerList(ctx, ctx.input(1), "size");
    if (!size)
        return size.takeError();
    if (size->size() != 4 && size->size() != 5)
        return ctx.error("size " + shapeString(*size) + " must be (N, C, H, W) or (N, C, D, H, W)");
    const std::size_t spatial = size->size() - 2;
    const auto rows = static_cast<std::int64_t>(spatial);
    const Shape &thetaShape = ctx.input(0).shape();
    if (thetaShape.size() != 3 || thetaShape[1] != rows || thetaShape[2] != rows + 1)
        return ctx.error("theta must be (N, " + std::to_string(rows) + ", " + std::to_string(rows + 1) + ") for size " +
                         shapeString(*size) + ", got " + shapeString(thetaShape));
    auto theta = toDouble(ctx, ctx.input(0));
    if (!theta)
        return theta.takeError();
    const std::int64_t batch = thetaShape[0];
    if ((*size)[0] != batch)
        return ctx.error("size gives the batch " + std::to_string((*size)[0]) + ", theta " + std::to_string(batch));
    for (const auto d : *size)
        if (d < 0)
            return ctx.error("size " + shapeString(*size) + " has a negative value");
    const Shape dims(size->begin() + 2, size->end()); // (H, W) or (D, H, W)
    Shape outShape{batch};
    outShape.insert(outShape.end(), dims.begin(), dims.end());
    outShape.push_back(rows);
    auto out = ctx.allocateUninitialized(isHalfType(originalType) ? static_cast<int>(TensorProto::FLOAT) : originalType,
                                         outShape);
    if (!out)
        return out.takeError();

    // Position i of n along one axis, in [-1, 1]. align_corners=1 puts ±1 on the corner pixels' centres,
    // 0 on their outer edges (pixel centres at (2i + 1) / n - 1). One pixel with align_corners=1 gets -1,
    // as ONNX's reference implementation gives (PyTorch gives 0, ONNX Runtime 1).
    auto position = [&](std::int64_t i, std::int64_t n) {
        if (alignCorners == 0)
            return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
        return n == 1 ? -1.0 : 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) - 1.0;
    };
    const std::int64_t depth = spatial == 3 ? dims[0] : 1, height = dims[spatial - 2], width = dims[spatial - 1];
    const double *m = theta->data<double>();
    visitFloat(out->dataType(), [&]<typename T>() {
        T *g = out->mutableData<T>();
        for (std::int64_t n = 0; n < batch; ++n) {
            const double *a = m + n * rows * (rows + 1); // row r: a[r * (rows + 1) + column]
            for (std::int64_t d = 0; d < depth; ++d)
                for (std::int64_t h = 0; h < height; ++h)
                    for (std::int64_t w = 0; w < width; ++w) {
                        // The source position, innermost axis first: (x, y) or (x, y, z); the
                        // homogeneous 1 multiplies theta's last column, the translation.
                        const double p[3] = {position(w, width), position(h, height),
                                             spatial == 3 ? position(d, depth) : 0.0};
                        for (std::int64_t r = 0; r < rows; ++r) {
                            const double *row = a + r * (rows + 1);
                            double v = 0;
                            for (std::int64_t c = 0; c < rows; ++c)
                                v += row[c] * p[c];
                            *g++ = static_cast<T>(v + row[rows]);
                        }
                    }
        }
    });
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
