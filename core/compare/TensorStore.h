// The tensors one run keeps for the other to be compared against: in memory up to a byte budget,
// then spilled to files in a private temporary folder (removed with the store), so a comparison of
// every tensor of a large model never holds more than the budget.
#pragma once

#include "runtime/Tensor.h"
#include "support/Expected.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <unordered_map>

namespace portolan::compare {

class TensorStore {
public:
    explicit TensorStore(std::size_t budgetBytes) : m_budget(budgetBytes) {}
    ~TensorStore();
    TensorStore(const TensorStore &) = delete;
    TensorStore &operator=(const TensorStore &) = delete;

    /// Keeps `tensor` under `key` (replacing any earlier one).
    support::Status put(std::uint32_t key, const runtime::Tensor &tensor);
    /// The tensor kept under `key`, read back from its file when spilled; nullopt when none.
    support::Expected<std::optional<runtime::Tensor>> get(std::uint32_t key) const;
    void drop(std::uint32_t key);

    std::size_t peakHeldBytes() const { return m_peak; }
    std::size_t spilledBytes() const { return m_spilled; }

private:
    struct Entry {
        runtime::Tensor tensor;      ///< in memory; undefined when spilled
        int dataType = 0;
        runtime::Shape shape;
        std::filesystem::path file;  ///< set when spilled
    };
    std::size_t m_budget;
    std::size_t m_held = 0, m_peak = 0, m_spilled = 0;
    std::unordered_map<std::uint32_t, Entry> m_entries;
    std::filesystem::path m_dir;
};

} // namespace portolan::compare
