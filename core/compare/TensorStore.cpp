// Spilling: raw bytes, one file a tensor; the element type and shape stay in memory.
#include "compare/TensorStore.h"

#include <fstream>
#include <random>
#include <unistd.h>

namespace portolan::compare {

using support::makeError;

TensorStore::~TensorStore()
{
    if (!m_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
}

support::Status TensorStore::put(std::uint32_t key, const runtime::Tensor &tensor)
{
    drop(key);
    const std::size_t bytes = tensor.byteSize();
    const bool spill = m_held + bytes > m_budget && tensor.dataType() != onnx::TensorProto::STRING;
    if (!spill) {
        m_entries[key] = Entry{tensor, tensor.dataType(), tensor.shape(), {}};
        m_held += bytes;
        m_peak = std::max(m_peak, m_held);
        return support::Status::ok();
    }
    std::error_code ec;
    if (m_dir.empty()) {
        std::random_device random;
        m_dir = std::filesystem::temp_directory_path(ec) /
                ("portolan-compare-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
        if (ec || !std::filesystem::create_directories(m_dir, ec))
            return makeError("io", "cannot create a folder to spill compared tensors to: " + ec.message(), m_dir.string());
    }
    const std::filesystem::path file = m_dir / (std::to_string(key) + ".bin");
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(tensor.rawData()), static_cast<std::streamsize>(bytes));
    if (!out.flush())
        return makeError("io", "cannot spill a compared tensor (disk full?)", file.string());
    m_entries[key] = Entry{{}, tensor.dataType(), tensor.shape(), file};
    m_spilled += bytes;
    return support::Status::ok();
}

support::Expected<std::optional<runtime::Tensor>> TensorStore::get(std::uint32_t key) const
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return std::optional<runtime::Tensor>{};
    const Entry &e = it->second;
    if (e.file.empty())
        return std::optional<runtime::Tensor>{e.tensor};
    runtime::Tensor loaded = runtime::Tensor::zeros(e.dataType, e.shape);
    std::ifstream in(e.file, std::ios::binary);
    in.read(reinterpret_cast<char *>(loaded.mutableData<std::byte>()), static_cast<std::streamsize>(loaded.byteSize()));
    if (!in)
        return makeError("io", "cannot read back a spilled tensor", e.file.string());
    return std::optional<runtime::Tensor>{std::move(loaded)};
}

void TensorStore::drop(std::uint32_t key)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return;
    if (it->second.file.empty()) {
        m_held -= it->second.tensor.byteSize();
    } else {
        std::error_code ec;
        std::filesystem::remove(it->second.file, ec);
    }
    m_entries.erase(it);
}

} // namespace portolan::compare
