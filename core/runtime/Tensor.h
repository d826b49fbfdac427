// Runtime tensors: an element type, a shape and contiguous row-major storage. Storage is shared
// (copies are cheap) and may view memory it does not own, such as a memory-mapped initializer.
#pragma once

#include "runtime/Half.h"

#include <onnx/onnx_pb.h>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace portolan::runtime {

using Shape = std::vector<std::int64_t>;

/// Bytes of freed tensor buffers kept for reuse (buffers of 256 KiB and more, at most 512 MiB: a run
/// allocates the sizes the last one did, and fresh memory costs a page fault per 4 KiB).
std::size_t cachedBufferBytes();
/// Hands the kept buffers back to the allocator (when a model closes, say).
void releaseCachedBuffers();

/// Product of dims (1 for a scalar); the caller has validated that it does not overflow.
std::int64_t elementCount(const Shape &shape);
/// "[1,3,224,224]".
std::string shapeString(const Shape &shape);

class Tensor {
public:
    Tensor() = default;

    /// Zero-filled tensor with owned storage (empty strings for STRING). Bytes are not checked here:
    /// kernels allocate through KernelContext, which enforces the memory cap first.
    static Tensor zeros(int dataType, Shape shape);
    /// Owned storage left as it was allocated, for a kernel that writes every element (no zeroing
    /// pass over a buffer about to be overwritten). STRING tensors still start as empty strings.
    static Tensor uninitialized(int dataType, Shape shape);
    /// Read-only view of `data`, kept alive by `owner` (a mapped file, a TensorProto…).
    static Tensor view(int dataType, Shape shape, const void *data, std::shared_ptr<const void> owner);
    /// Writable view of memory another object owns (a planned arena): writes go to `data`, never to
    /// a copy, and the bytes count as the arena's, not this tensor's.
    static Tensor wrap(int dataType, Shape shape, void *data, std::shared_ptr<const void> owner);
    /// A scalar or 1-D tensor from values, for tests and small constants.
    template <typename T>
    static Tensor fromVector(int dataType, Shape shape, const std::vector<T> &values);

    bool defined() const { return m_dataType != 0; }
    int dataType() const { return m_dataType; }
    const Shape &shape() const { return m_shape; }
    std::size_t rank() const { return m_shape.size(); }
    std::int64_t dim(std::size_t axis) const { return m_shape[axis]; }
    std::int64_t size() const { return m_size; }
    std::size_t byteSize() const;
    /// Bytes this tensor's storage owns (0 for a view): what the memory cap counts.
    std::size_t ownedBytes() const;

    template <typename T>
    const T *data() const { return reinterpret_cast<const T *>(m_data); }
    /// Writable data; copies first if the storage is shared or a view (copy-on-write).
    template <typename T>
    T *mutableData() { makeUnique(); return reinterpret_cast<T *>(const_cast<std::byte *>(m_data)); }
    const std::byte *rawData() const { return m_data; }

    const std::vector<std::string> &strings() const { return *m_strings; }
    std::vector<std::string> &mutableStrings();

    /// Same storage, another shape of the same element count.
    Tensor reshaped(Shape shape) const;
    /// The same bytes, read-only: a write through the result copies first (what kernels that rely on
    /// copy-on-write must see of a wrap()ped arena tensor).
    Tensor readOnly() const { Tensor t = *this; t.m_writableView = false; return t; }
    /// True for a wrap()ped view.
    bool isWritableView() const { return m_writableView; }
    /// A deep copy with its own storage.
    Tensor clone() const;

private:
    static Tensor owned(int dataType, Shape shape, bool zeroFilled);
    void makeUnique();

    int m_dataType = 0;
    Shape m_shape;
    std::int64_t m_size = 0;
    const std::byte *m_data = nullptr;
    std::shared_ptr<const void> m_owner;          // keeps m_data alive
    bool m_ownsData = false;                      // m_owner is our own buffer
    bool m_writableView = false;                  // wrap(): written in place, never copied on write
    std::shared_ptr<std::vector<std::string>> m_strings;
};

template <typename T>
Tensor Tensor::fromVector(int dataType, Shape shape, const std::vector<T> &values)
{
    Tensor t = zeros(dataType, std::move(shape));
    assert(static_cast<std::int64_t>(values.size()) == t.size());
    if constexpr (std::is_same_v<T, std::string>) {
        t.mutableStrings() = values;
    } else {
        T *out = t.mutableData<T>();
        for (std::size_t i = 0; i < values.size(); ++i)
            out[i] = values[i];
    }
    return t;
}

} // namespace portolan::runtime
