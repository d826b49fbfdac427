"""Conformance cases for CumProd-26, BitCast-26, Range-27, Col2Im-18, AffineGrid-20 and DeformConv-19.

generate.py calls add_cases(case, floats, rng). Where ONNX Runtime sums in float32 and an output may come
out near zero (Col2Im, AffineGrid, DeformConv), `exact` gives the outputs computed in double by the numpy
references below; ONNX Runtime must still agree with them within generate.py's check.
ONNX Runtime 1.30 refuses every opset-27 model ("Opset 27 is under development"), so the range_27 cases
take their expected outputs from numpy alone (range_float16 below, the spec's formula); BitCast from or
to bool has no ONNX Runtime kernel and is left out.
"""

import itertools

import numpy as np
from onnx import TensorProto, helper


# ---- numpy references in double -------------------------------------------------------------------------

def col2im_reference(x, image, block, dilations, pads, strides):
    """[N, C * prod(block), L] → [N, C, *image]: each block value summed into its image position."""
    n_axes = len(image)
    counts = [(image[a] + pads[a] + pads[a + n_axes] - dilations[a] * (block[a] - 1) - 1) // strides[a] + 1
              for a in range(n_axes)]
    n, rows, _ = x.shape
    taps = int(np.prod(block))
    cols = x.astype(np.float64).reshape(n, rows // taps, taps, -1)
    out = np.zeros((n, rows // taps) + tuple(image))
    for t, tap in enumerate(np.ndindex(*block)):
        for l, pos in enumerate(np.ndindex(*counts)):
            at = [pos[a] * strides[a] - pads[a] + tap[a] * dilations[a] for a in range(n_axes)]
            if all(0 <= at[a] < image[a] for a in range(n_axes)):
                out[(slice(None), slice(None)) + tuple(at)] += cols[:, :, t, l]
    return out.astype(x.dtype)


def affine_grid_reference(theta, size, align_corners):
    """(N, 2, 3) or (N, 3, 4) theta, size (N, C, [D,] H, W) → (N, [D,] H, W, 2 or 3)."""
    dims = list(size[2:])

    def axis(n):
        i = np.arange(n, dtype=np.float64)
        if align_corners:
            return np.full(n, -1.0) if n == 1 else 2 * i / (n - 1) - 1
        return (2 * i + 1) / n - 1

    mesh = np.meshgrid(*[axis(n) for n in dims], indexing="ij")  # outermost axis first
    points = np.stack(mesh[::-1] + [np.ones(dims)], axis=-1)  # (x, y[, z], 1)
    grid = np.einsum("nrc,...c->n...r", theta.astype(np.float64), points)
    return grid.astype(theta.dtype)


def deform_conv_reference(x, w, offset, bias, mask, strides, pads, dilations, group, offset_group):
    """2-D DeformConv: each tap bilinearly samples X (zero outside) at its position plus its offset."""
    x, w, offset = x.astype(np.float64), w.astype(np.float64), offset.astype(np.float64)
    n, c, height, width = x.shape
    m, _, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    taps = kh * kw
    offset = offset.reshape(n, offset_group, taps, 2, oh, ow)
    mask = np.ones((n, offset_group, taps, oh, ow)) if mask is None else \
        mask.astype(np.float64).reshape(n, offset_group, taps, oh, ow)

    def sample(plane, y, x_):
        if not (-1 < y < height and -1 < x_ < width):
            return 0.0
        y0, x0 = int(np.floor(y)), int(np.floor(x_))
        total = 0.0
        for dy, dx in itertools.product((0, 1), (0, 1)):
            yy, xx = y0 + dy, x0 + dx
            if 0 <= yy < height and 0 <= xx < width:
                total += (y - y0 if dy else 1 - (y - y0)) * (x_ - x0 if dx else 1 - (x_ - x0)) * plane[yy, xx]
        return total

    per_group, per_offset_group = c // group, c // offset_group
    columns = np.zeros((n, c, taps, oh, ow))  # sampled and masked taps
    for b, ch, t, i, j in itertools.product(range(n), range(c), range(taps), range(oh), range(ow)):
        g = ch // per_offset_group
        ki, kj = divmod(t, kw)
        y = i * strides[0] - pads[0] + ki * dilations[0] + offset[b, g, t, 0, i, j]
        x_ = j * strides[1] - pads[1] + kj * dilations[1] + offset[b, g, t, 1, i, j]
        columns[b, ch, t, i, j] = sample(x[b, ch], y, x_) * mask[b, g, t, i, j]
    out = np.zeros((n, m, oh, ow))
    for filt in range(m):
        g = filt // (m // group)
        block = columns[:, g * per_group:(g + 1) * per_group].reshape(n, per_group * taps, oh, ow)
        out[:, filt] = np.einsum("k,nkij->nij", w[filt].reshape(-1), block)
    if bias is not None:
        out += bias.astype(np.float64).reshape(1, m, 1, 1)
    return out.astype(np.float32)


# ---- cases ----------------------------------------------------------------------------------------------

def range_float16(feeds, stash_dtype):
    """Range-27 on float16 operands: count = max(ceil((limit - start) / delta), 0) and each value
    start + i * delta computed in stash_type's precision, then rounded once to float16."""
    start, limit, delta = (np.float16(feeds[k]).astype(stash_dtype) for k in ("s", "l", "d"))
    count = max(int(np.ceil((limit - start) / delta)), 0)
    values = start + np.arange(count, dtype=stash_dtype) * delta
    return values.astype(np.float16).astype(np.float32)


def add_cases(case, floats, rng):
    # CumProd-26: exclusive and reverse on floats (kept near 1 so products stay moderate) and integers
    x = (floats(2, 3, 4) * 0.5 + 1).astype(np.float32)
    for exclusive, reverse in itertools.product((0, 1), (0, 1)):
        case(26, f"cumprod_float_exclusive{exclusive}_reverse{reverse}",
             [helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)],
             [("x", x)], [("y", TensorProto.FLOAT)], [("axis", np.array(1, np.int64))])
    case(26, "cumprod_float_negative_axis_int32", [helper.make_node("CumProd", ["x", "axis"], ["y"], reverse=1)],
         [("x", x)], [("y", TensorProto.FLOAT)], [("axis", np.array(-1, np.int32))])
    ints = rng.integers(-4, 5, (3, 5)).astype(np.int32)
    for exclusive, reverse in itertools.product((0, 1), (0, 1)):
        case(26, f"cumprod_int32_exclusive{exclusive}_reverse{reverse}",
             [helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)],
             [("x", ints)], [("y", TensorProto.INT32)], [("axis", np.array(1, np.int64))])
    case(26, "cumprod_int64_axis0_exclusive", [helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=1)],
         [("x", rng.integers(-9, 10, (4, 3)).astype(np.int64))], [("y", TensorProto.INT64)],
         [("axis", np.array(0, np.int64))])

    # BitCast-26: the same bits under another type of the same width
    case(26, "bitcast_float_to_int32", [helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.INT32)],
         [("x", floats(3, 4))], [("y", TensorProto.INT32)])
    case(26, "bitcast_int32_to_float", [helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.FLOAT)],
         [("x", floats(2, 5).view(np.int32))], [("y", TensorProto.FLOAT)])  # bits of finite floats
    case(26, "bitcast_int8_to_uint8", [helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.UINT8)],
         [("x", rng.integers(-128, 128, (2, 8)).astype(np.int8))], [("y", TensorProto.UINT8)])
    case(26, "bitcast_uint8_to_int8", [helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.INT8)],
         [("x", rng.integers(0, 256, (9,)).astype(np.uint8))], [("y", TensorProto.INT8)])

    # Range-27: float16 operands (Cast in, Cast out) computed in float (stash_type's default) and double
    for name, stash, (start, limit, delta) in [("past_2048", None, (2048.0, 2080.0, 1.0)),
                                               ("double_stash", TensorProto.DOUBLE, (0.1, 0.9, 0.05)),
                                               ("descending", None, (10.0, 4.0, -1.5))]:
        attributes = {} if stash is None else {"stash_type": stash}
        stash_dtype = np.float64 if stash == TensorProto.DOUBLE else np.float32
        case(27, f"range_27_float16_{name}",
             [helper.make_node("Cast", [n], [n + "16"], to=TensorProto.FLOAT16) for n in ("s", "l", "d")] +
             [helper.make_node("Range", ["s16", "l16", "d16"], ["r"], **attributes),
              helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)],
             [("s", np.array(start, np.float32)), ("l", np.array(limit, np.float32)), ("d", np.array(delta, np.float32))],
             [("y", TensorProto.FLOAT)], exact=lambda feeds, t=stash_dtype: {"y": range_float16(feeds, t)})

    # Col2Im-18: 2-D with pads, strides and dilations; 3-D
    for name, image, block, dilations, pads, strides, n, c in [
            ("col2im_2d_pads_strides_dilations", [7, 8], [2, 3], [2, 1], [1, 0, 2, 1], [2, 1], 2, 3),
            ("col2im_2d_overlapping", [5, 6], [3, 2], [1, 1], [1, 1, 1, 1], [1, 1], 1, 2),
            # one channel: ONNX Runtime 1.30 gets some 3-D cases with several channels wrong
            ("col2im_3d", [5, 5, 3], [2, 2, 2], [2, 1, 1], [1, 0, 0, 0, 1, 1], [1, 2, 1], 2, 1)]:
        axes = len(image)
        counts = [(image[a] + pads[a] + pads[a + axes] - dilations[a] * (block[a] - 1) - 1) // strides[a] + 1
                  for a in range(axes)]
        cols = floats(n, c * int(np.prod(block)), int(np.prod(counts)))
        case(18, name, [helper.make_node("Col2Im", ["x", "image", "block"], ["y"], dilations=dilations, pads=pads,
                                         strides=strides)],
             [("x", cols)], [("y", TensorProto.FLOAT)],
             [("image", np.array(image, np.int64)), ("block", np.array(block, np.int64))],
             exact=lambda inputs, image=image, block=block, dilations=dilations, pads=pads, strides=strides:
                 {"y": col2im_reference(inputs["x"], image, block, dilations, pads, strides)})

    # AffineGrid-20: 2-D and 3-D, align_corners 0 and 1 (no size-1 axis: there implementations disagree)
    for align_corners in (0, 1):
        for name, theta, size in [("2d", floats(2, 2, 3), [2, 3, 4, 5]), ("3d", floats(2, 3, 4), [2, 1, 3, 4, 5])]:
            case(20, f"affine_grid_{name}_align_corners{align_corners}",
                 [helper.make_node("AffineGrid", ["theta", "size"], ["y"], align_corners=align_corners)],
                 [("theta", theta)], [("y", TensorProto.FLOAT)], [("size", np.array(size, np.int64))],
                 exact=lambda inputs, size=size, align_corners=align_corners:
                     {"y": affine_grid_reference(inputs["theta"], size, align_corners)})

    # DeformConv-19: offset_group 2, with and without mask (and bias), group 2 in the first
    for name, n, c, m, size, kernel, strides, pads, dilations, group, with_mask in [
            ("deform_conv_mask_offset_group2", 2, 4, 6, [6, 7], [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 2, True),
            ("deform_conv_no_mask_offset_group2", 1, 4, 2, [7, 6], [2, 3], [2, 1], [1, 0, 2, 1], [2, 1], 1, False)]:
        out = [(size[a] + pads[a] + pads[a + 2] - ((kernel[a] - 1) * dilations[a] + 1)) // strides[a] + 1
               for a in range(2)]
        taps = kernel[0] * kernel[1]
        inputs = [("x", floats(n, c, *size)), ("offset", (floats(n, 2 * taps * 2, *out) * 1.5).astype(np.float32))]
        if with_mask:
            inputs.append(("mask", rng.random((n, 2 * taps, *out)).astype(np.float32)))
        weights, bias = floats(m, c // group, *kernel), floats(m)
        case(19, name,
             [helper.make_node("DeformConv", ["x", "w", "offset", "b"] + (["mask"] if with_mask else []), ["y"],
                               strides=strides, pads=pads, dilations=dilations, group=group, offset_group=2)],
             inputs, [("y", TensorProto.FLOAT)], [("w", weights), ("b", bias)],
             exact=lambda feeds, weights=weights, bias=bias, strides=strides, pads=pads, dilations=dilations,
                 group=group: {"y": deform_conv_reference(feeds["x"], weights, feeds["offset"], bias, feeds.get("mask"),
                                                          strides, pads, dilations, group, 2)})
