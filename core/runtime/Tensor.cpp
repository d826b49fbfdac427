// Tensor storage management.
#include "runtime/Tensor.h"

#include "ir/Type.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>
#include <mutex>
#include <unordered_map>

namespace portolan::runtime {

std::int64_t elementCount(const Shape &shape)
{
    std::int64_t n = 1;
    for (const auto d : shape)
        n *= d;
    return n;
}

std::string shapeString(const Shape &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? "," : "") + std::to_string(shape[i]);
    return out + "]";
}

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

/// A buffer of 256 KiB or more. From 2 MiB on it is aligned to huge pages and asks the kernel for
/// them (transparent huge pages in "madvise" mode, Debian's default): a tensor of a few MiB then
/// takes a few page faults instead of a thousand, and its walk a few TLB entries.
std::byte *allocateLarge(std::size_t bytes)
{
    if (bytes < kHugePage)
        return static_cast<std::byte *>(std::malloc(bytes));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    auto *p = static_cast<std::byte *>(std::aligned_alloc(kHugePage, rounded));
    if (p)
        madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}
void freeLarge(std::byte *p)
{
    std::free(p);
}

/// Freed tensor buffers of 256 KiB and more, kept for the next tensor of the same byte size: a run
/// allocates the sizes the last run did, and fresh memory costs a page fault and a zeroing per 4 KiB
/// (5% of a reference run; a comparison, which holds every tensor of its first run, paid it twice).
/// Bounded: past kLimit bytes a freed buffer goes back to the allocator.
class BufferCache {
public:
    static constexpr std::size_t kMinBytes = std::size_t(256) << 10;
    static constexpr std::size_t kLimit = std::size_t(512) << 20;

    std::byte *take(std::size_t bytes)
    {
        const std::lock_guard lock(m_mutex);
        const auto it = m_free.find(bytes);
        if (it == m_free.end())
            return nullptr;
        std::byte *p = it->second;
        m_free.erase(it);
        m_cached -= bytes;
        return p;
    }
    void give(std::byte *p, std::size_t bytes)
    {
        {
            const std::lock_guard lock(m_mutex);
            if (m_cached + bytes <= kLimit) {
                m_free.emplace(bytes, p);
                m_cached += bytes;
                return;
            }
        }
        freeLarge(p);
    }

    std::size_t cached()
    {
        const std::lock_guard lock(m_mutex);
        return m_cached;
    }
    void release()
    {
        std::unordered_multimap<std::size_t, std::byte *> kept;
        {
            const std::lock_guard lock(m_mutex);
            kept.swap(m_free);
            m_cached = 0;
        }
        for (auto &[bytes, p] : kept)
            freeLarge(p);
    }

private:
    std::mutex m_mutex;
    std::unordered_multimap<std::size_t, std::byte *> m_free;
    std::size_t m_cached = 0;
};

BufferCache &bufferCache()
{
    static auto *cache = new BufferCache; // never destroyed: tensors in statics may outlive any order
    return *cache;
}

} // namespace

std::size_t cachedBufferBytes() { return bufferCache().cached(); }
void releaseCachedBuffers() { bufferCache().release(); }

/// At least one byte, so data() is never null; zero-filled only when asked.
static std::shared_ptr<std::byte[]> allocateBytes(std::size_t bytes, bool zeroFilled = true)
{
    const std::size_t size = bytes ? bytes : 1;
    if (size < BufferCache::kMinBytes)
        return std::shared_ptr<std::byte[]>(zeroFilled ? new std::byte[size]() : new std::byte[size]);
    std::byte *p = bufferCache().take(size);
    if (!p)
        p = allocateLarge(size);
    if (!p)
        throw std::bad_alloc();
    if (zeroFilled)
        std::memset(p, 0, size);
    return std::shared_ptr<std::byte[]>(p, [size](std::byte *q) { bufferCache().give(q, size); });
}

Tensor Tensor::zeros(int dataType, Shape shape)
{
    return owned(dataType, std::move(shape), true);
}

Tensor Tensor::uninitialized(int dataType, Shape shape)
{
    return owned(dataType, std::move(shape), false);
}

Tensor Tensor::owned(int dataType, Shape shape, bool zeroFilled)
{
    Tensor t;
    t.m_dataType = dataType;
    t.m_size = elementCount(shape);
    t.m_shape = std::move(shape);
    if (dataType == onnx::TensorProto::STRING) {
        t.m_strings = std::make_shared<std::vector<std::string>>(static_cast<std::size_t>(t.m_size));
        return t;
    }
    auto buffer = allocateBytes(t.byteSize(), zeroFilled);
    t.m_data = buffer.get();
    t.m_owner = std::move(buffer);
    t.m_ownsData = true;
    return t;
}

Tensor Tensor::view(int dataType, Shape shape, const void *data, std::shared_ptr<const void> owner)
{
    Tensor t;
    t.m_dataType = dataType;
    t.m_size = elementCount(shape);
    t.m_shape = std::move(shape);
    t.m_data = static_cast<const std::byte *>(data);
    t.m_owner = std::move(owner);
    return t;
}

Tensor Tensor::wrap(int dataType, Shape shape, void *data, std::shared_ptr<const void> owner)
{
    Tensor t = view(dataType, std::move(shape), data, std::move(owner));
    t.m_writableView = true;
    return t;
}

std::size_t Tensor::byteSize() const
{
    return static_cast<std::size_t>(m_size) * ir::dataTypeSize(m_dataType);
}

std::size_t Tensor::ownedBytes() const
{
    if (m_strings) {
        std::size_t bytes = m_strings->size() * sizeof(std::string);
        for (const auto &s : *m_strings)
            bytes += s.capacity() > 15 ? s.capacity() : 0;
        return bytes;
    }
    return m_ownsData ? byteSize() : 0;
}

std::vector<std::string> &Tensor::mutableStrings()
{
    if (m_strings.use_count() > 1)
        m_strings = std::make_shared<std::vector<std::string>>(*m_strings);
    return *m_strings;
}

void Tensor::makeUnique()
{
    if (m_dataType == onnx::TensorProto::STRING || m_writableView || (m_ownsData && m_owner.use_count() == 1))
        return;
    auto buffer = allocateBytes(byteSize(), false);
    if (byteSize())
        std::memcpy(buffer.get(), m_data, byteSize());
    m_data = buffer.get();
    m_owner = std::move(buffer);
    m_ownsData = true;
}

Tensor Tensor::reshaped(Shape shape) const
{
    Tensor t = *this;
    t.m_shape = std::move(shape);
    assert(elementCount(t.m_shape) == m_size);
    return t;
}

Tensor Tensor::clone() const
{
    Tensor t = *this;
    if (m_strings) {
        t.m_strings = std::make_shared<std::vector<std::string>>(*m_strings);
    } else {
        t.m_ownsData = false; // forces the copy
        t.m_writableView = false;
        t.makeUnique();
    }
    return t;
}

} // namespace portolan::runtime
