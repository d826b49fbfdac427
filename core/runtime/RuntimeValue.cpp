// RuntimeValue helpers.
#include "runtime/RuntimeValue.h"

#include "ir/Type.h"

namespace portolan::runtime {

std::size_t RuntimeValue::ownedBytes() const
{
    std::size_t bytes = tensor.ownedBytes();
    for (const Tensor &t : sequence)
        bytes += t.ownedBytes();
    return bytes;
}

std::string RuntimeValue::describe() const
{
    switch (kind) {
    case Kind::Tensor: return ir::dataTypeName(tensor.dataType()) + shapeString(tensor.shape());
    case Kind::Sequence: return "seq(" + std::to_string(sequence.size()) + " x " + ir::dataTypeName(elementType) + ")";
    case Kind::EmptyOptional: return "optional(none)";
    }
    return "?";
}

} // namespace portolan::runtime
