// What flows along an edge at run time: a tensor, a sequence of tensors, or an empty optional.
#pragma once

#include "runtime/Tensor.h"

#include <string>
#include <vector>

namespace portolan::runtime {

struct RuntimeValue {
    enum class Kind { Tensor, Sequence, EmptyOptional };

    Kind kind = Kind::Tensor;
    Tensor tensor;               ///< Kind::Tensor
    std::vector<Tensor> sequence; ///< Kind::Sequence
    int elementType = 0;         ///< element type of an empty sequence or optional, when known
    bool isOptional = false;     ///< wrapped in optional(...) (OptionalHasElement answers true)
    bool optionalOfSequence = false; ///< for EmptyOptional: optional(seq(...)) rather than optional(tensor)

    static RuntimeValue ofTensor(Tensor t) { RuntimeValue v; v.tensor = std::move(t); return v; }
    static RuntimeValue ofSequence(std::vector<Tensor> items, int elementType)
    {
        RuntimeValue v;
        v.kind = Kind::Sequence;
        v.sequence = std::move(items);
        v.elementType = elementType;
        return v;
    }
    static RuntimeValue emptyOptional(int elementType, bool ofSequence)
    {
        RuntimeValue v;
        v.kind = Kind::EmptyOptional;
        v.elementType = elementType;
        v.isOptional = true;
        v.optionalOfSequence = ofSequence;
        return v;
    }

    bool isTensor() const { return kind == Kind::Tensor; }
    /// Bytes owned by this value's storage (for the memory cap).
    std::size_t ownedBytes() const;
    /// "float[2,3]", "seq(3 × float)", "optional(none)".
    std::string describe() const;
};

} // namespace portolan::runtime
