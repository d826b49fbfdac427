"""What the variant case files share: the element-type names and `single`, a one-node case."""

import numpy as np
from onnx import TensorProto, helper

F, F16, D, I64, I32, I8, U8, BOOL = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.INT64,
                                     TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8, TensorProto.BOOL)
ELEM_OF = {np.dtype(np.float32): F, np.dtype(np.float16): F16, np.dtype(np.float64): D, np.dtype(np.int64): I64,
           np.dtype(np.int32): I32, np.dtype(np.int8): I8, np.dtype(np.uint8): U8, np.dtype(np.bool_): BOOL,
           np.dtype(np.int16): TensorProto.INT16, np.dtype(np.uint16): TensorProto.UINT16,
           np.dtype(np.uint32): TensorProto.UINT32, np.dtype(np.uint64): TensorProto.UINT64}


def single(case, opset, name, op, inputs, outputs, constants=(), exact=None, ort_refuses=None, **attributes):
    """One node. inputs [(name, array)] in the node's order, fed at run time as ONNX's node tests feed
    them, except those named in `constants` (initializers); an empty name leaves a slot out.
    outputs [(name, elem type)]."""
    node = helper.make_node(op, [n for n, _ in inputs], [n for n, _ in outputs], **attributes)
    case(opset, name, [node], [(n, a) for n, a in inputs if n and n not in constants], outputs,
         [(n, a) for n, a in inputs if n and n in constants], exact=exact, ort_refuses=ort_refuses)
