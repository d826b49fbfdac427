"""Conformance cases for GridSample's volumetric form (X [N, C, D, H, W], grid [N, Do, Ho, Wo, 3]) at opsets 20
and 22: linear (trilinear), nearest and cubic (tricubic) under each padding_mode and align_corners.

generate.py calls add_cases(case, floats, rng). Every case has `exact`: the outputs computed in double by
gridsample_reference below (PyTorch's grid_sample semantics, which ONNX Runtime shares in 2-D and for 3-D
linear and nearest); ONNX Runtime must still agree with them where it runs. ONNX Runtime 1.30 refuses
cubic on 5-D input ("Only support GridSample Cubic mode in 4-D cases"), so the tricubic cases have no ONNX
Runtime output to check against.
Grid points are kept off the exact halves between two indices: there nearest-with-reflection depends on
whether the point is rounded before it is reflected (ONNX Runtime, ONNX's reference) or after (PyTorch,
Portolan), which the spec leaves open.
"""

import itertools
import math

import numpy as np
from onnx import TensorProto, helper


# ---- numpy reference in double --------------------------------------------------------------------------

def _unnormalize(g, size, align_corners):
    """A normalized coordinate in [-1, 1] to an index position along an axis of `size` elements."""
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _pad(p, size, padding, align_corners):
    """border: clamp into the axis; reflection: mirror at the edges (the corner centres with
    align_corners, else the outer edges), repeatedly, then clamp; zeros: unchanged."""
    if padding == "zeros":
        return p
    if padding == "reflection":
        low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        span = high - low
        if span == 0:
            return 0.0
        distance = abs(p - low)
        flips, rest = divmod(distance, span)
        p = low + rest if flips % 2 == 0 else high - rest
    return min(max(p, 0.0), size - 1.0)


def _keys(t, a=-0.75):
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 around fraction t."""
    def inner(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def outer(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [outer(t + 1), inner(t), inner(1 - t), outer(2 - t)]


def _axis_taps(p, size, mode, padding, align_corners):
    """[(index, weight)] along one axis; indices outside the axis read zero and are dropped."""
    if mode == "cubic":  # the point stays; each of its four taps is padded on its own
        base = math.floor(p)
        taps = [(int(_pad(base - 1 + k, size, padding, align_corners)), w) for k, w in enumerate(_keys(p - base))]
    else:
        p = _pad(p, size, padding, align_corners)
        if mode == "nearest":
            taps = [(int(np.rint(p)), 1.0)]  # ties to even
        else:
            base = math.floor(p)
            taps = [(base, 1 - (p - base)), (base + 1, p - base)]
    return [(i, w) for i, w in taps if 0 <= i < size]


def gridsample_reference(x, grid, mode, padding, align_corners):
    """Y[n, c, *o] = sum over the product of each axis's taps of X at the tap times its weights; the grid
    lists each point's coordinates innermost axis first."""
    dims = x.shape[2:]
    data = x.astype(np.float64)
    out = np.zeros(x.shape[:2] + grid.shape[1:-1])
    for n in range(x.shape[0]):
        for o in itertools.product(*[range(d) for d in grid.shape[1:-1]]):
            coords = grid[(n,) + o].astype(np.float64)[::-1]  # now outermost axis first, like dims
            per_axis = [_axis_taps(_unnormalize(g, size, align_corners), size, mode, padding, align_corners)
                        for g, size in zip(coords, dims)]
            for taps in itertools.product(*per_axis):
                weight = math.prod(w for _, w in taps)
                out[(n, slice(None)) + o] += weight * data[(n, slice(None)) + tuple(i for i, _ in taps)]
    return out.astype(x.dtype)


# ---- cases ----------------------------------------------------------------------------------------------

def _grid(rng, batch, out_dims, in_dims, align_corners, dtype):
    """Points mostly in [-1.3, 1.3], one in six far outside (to exercise the padding), none within 1e-3 of
    the halfway point between two indices on any axis."""
    grid = rng.uniform(-1.3, 1.3, (batch,) + out_dims + (3,))
    far = rng.random(grid.shape) < 1 / 6
    grid[far] = rng.uniform(2.0, 4.0, int(far.sum())) * rng.choice([-1.0, 1.0], int(far.sum()))
    sizes = np.array(in_dims[::-1], np.float64)  # the grid's (x, y, z) are the axes (W, H, D)
    for _ in range(10):
        p = _unnormalize(grid, sizes, align_corners)
        near_half = np.abs(p - np.floor(p) - 0.5) < 1e-3
        if not near_half.any():
            break
        grid[near_half] += 0.01
    return grid.astype(dtype)


def add_cases(case, floats, rng):
    in_dims = (3, 4, 5)
    x = floats(2, 3, *in_dims)
    runs = [  # (opset, mode, padding_mode, align_corners)
        (20, "linear", "zeros", 0),
        (20, "linear", "border", 1),
        (20, "nearest", "reflection", 0),
        (20, "nearest", "zeros", 1),
        (20, "cubic", "zeros", 0),
        (22, "linear", "reflection", 1),
        (22, "nearest", "border", 0),
        (22, "cubic", "border", 1),
        (22, "cubic", "reflection", 0),
    ]
    for opset, mode, padding, align_corners in runs:
        grid = _grid(rng, 2, (2, 3, 4), in_dims, align_corners, np.float32)
        case(opset, f"gridsample_3d_{mode}_{padding}_align_corners{align_corners}_opset{opset}",
             [helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding,
                               align_corners=align_corners)],
             [("x", x), ("grid", grid)], [("y", TensorProto.FLOAT)],
             exact=lambda feeds, m=mode, p=padding, a=align_corners:
                 {"y": gridsample_reference(feeds["x"], feeds["grid"], m, p, a)},
             ort_refuses="ONNX Runtime 1.30 samples cubic in 4-D only" if mode == "cubic" else None)
    # Default attributes (linear, zeros, align_corners 0) on doubles, one sample deep
    xd = rng.standard_normal((1, 2, *in_dims))
    grid = _grid(rng, 1, (1, 3, 2), in_dims, 0, np.float64)
    case(22, "gridsample_3d_default_attributes_double", [helper.make_node("GridSample", ["x", "grid"], ["y"])],
         [("x", xd), ("grid", grid)], [("y", TensorProto.DOUBLE)],
         exact=lambda feeds: {"y": gridsample_reference(feeds["x"], feeds["grid"], "linear", "zeros", 0)})
