// Calibration: histograms of |x| per quantized activation, one pass over the batches. A histogram's
// range starts at the first batch's max and doubles (merging bin pairs) whenever a larger value
// arrives, so no second pass is needed to fix the range first.
#include "runtime/cpu/Calibration.h"

#include "support/StagedFile.h"

#include "runtime/Feeds.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/Precision.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

namespace portolan::runtime::cpu {

using support::makeError;

namespace {


class AbsHistogram {
public:
    void add(const float *data, std::int64_t n)
    {
        float batchMax = 0;
        for (std::int64_t i = 0; i < n; ++i)
            if (std::isfinite(data[i]))
                batchMax = std::max(batchMax, std::fabs(data[i]));
        m_absMax = std::max(m_absMax, static_cast<double>(batchMax));
        if (m_range == 0)
            m_range = batchMax;
        while (batchMax > m_range) {
            for (std::size_t i = 0; i < kBins / 2; ++i)
                m_counts[i] = m_counts[2 * i] + m_counts[2 * i + 1];
            std::fill(m_counts.begin() + kBins / 2, m_counts.end(), 0);
            m_range *= 2;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            if (!std::isfinite(data[i]))
                continue;
            const double at = m_range > 0 ? std::fabs(data[i]) / m_range * kBins : 0;
            ++m_counts[std::min(kBins - 1, static_cast<std::size_t>(at))];
            ++m_total;
        }
    }

    double absMax() const { return m_absMax; }

    /// The upper edge of the bin where the cumulative count reaches `percent` of all values.
    double percentile(double percent) const
    {
        const double wanted = percent / 100 * static_cast<double>(m_total);
        double seen = 0;
        for (std::size_t i = 0; i < kBins; ++i) {
            seen += static_cast<double>(m_counts[i]);
            if (seen >= wanted)
                return std::min(m_absMax, (static_cast<double>(i) + 1) * m_range / kBins);
        }
        return m_absMax;
    }

private:
    static constexpr std::size_t kBins = 4096;
    std::vector<std::uint64_t> m_counts = std::vector<std::uint64_t>(kBins, 0);
    double m_range = 0;
    double m_absMax = 0;
    std::uint64_t m_total = 0;
};

/// Feeds every observed tensor named in `histograms` to its histogram.
class RangeObserver final : public RunObserver {
public:
    RangeObserver(const ir::Model &model, std::unordered_map<std::string, AbsHistogram> &histograms)
        : m_model(model), m_histograms(histograms) {}

    void observe(const std::string &name, const RuntimeValue &value)
    {
        auto it = m_histograms.find(name);
        if (it != m_histograms.end() && value.isTensor() && value.tensor.dataType() == onnx::TensorProto::FLOAT)
            it->second.add(value.tensor.data<float>(), value.tensor.size());
    }

    void nodeFinished(const ir::Node &node, std::span<const RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k)
            if (node.outputs[k].valid())
                observe(m_model.value(node.outputs[k]).name, outputs[k]);
    }

private:
    const ir::Model &m_model;
    std::unordered_map<std::string, AbsHistogram> &m_histograms;
};


} // namespace


std::vector<std::string> quantizedActivations(const ir::Model &model)
{
    std::set<std::string> names;
    const ir::Graph &main = model.graph(model.mainGraph());
    for (const ir::NodeId n : main.nodes) {
        const ir::Node &node = model.node(n);
        if (!node.alive || !isQuantizable(node))
            continue;
        for (std::size_t k = 0; k < node.inputs.size(); ++k)
            if (isQuantizedInput(node, k) && node.inputs[k].valid() && !model.value(node.inputs[k]).isInitializer())
                names.insert(model.value(node.inputs[k]).name);
    }
    return {names.begin(), names.end()};
}

support::Expected<std::vector<CalibrationBatch>> readCalibrationBatches(const ir::Model &model, const std::string &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return makeError("io", "calibration data '" + dir + "' is not a directory", model.sourcePath);
    std::vector<std::string> sets;
    if (!testDataFiles(dir, "input").empty()) {
        sets.push_back(dir);
    } else {
        for (const auto &entry : fs::directory_iterator(dir, ec))
            if (entry.is_directory() && !testDataFiles(entry.path().string(), "input").empty())
                sets.push_back(entry.path().string());
        std::sort(sets.begin(), sets.end());
    }
    if (sets.empty())
        return makeError("no-calibration-data", "calibration data '" + dir + "' has no input_K.pb files, in itself or "
                                                "in a subfolder", model.sourcePath);
    std::vector<CalibrationBatch> batches;
    for (const std::string &set : sets) {
        auto feeds = readTestDataInputs(model, set);
        if (!feeds) {
            support::Error e = feeds.error();
            e.primary.message = "calibration batch " + set + ": " + e.primary.message;
            return e;
        }
        batches.push_back({set, std::move(*feeds)});
    }
    return batches;
}

support::Expected<std::vector<CalibrationBatch>> randomCalibrationBatches(const ir::Model &model, int count, std::uint64_t seed,
                                                                          const std::map<std::string, Shape> &shapes)
{
    std::vector<CalibrationBatch> batches;
    for (int b = 0; b < count; ++b) {
        auto feeds = randomFeeds(model, seed, static_cast<std::uint64_t>(b), shapes); // batch b of the seed rule
        if (!feeds)
            return feeds.takeError();
        batches.push_back({"random:" + std::to_string(seed) + " batch " + std::to_string(b), std::move(*feeds)});
    }
    return batches;
}

support::Expected<CalibrationTable> calibrate(const ir::Model &model, const std::vector<CalibrationBatch> &batches,
                                              const CalibrationSettings &settings, const RunOptions &options)
{
    if (batches.empty())
        return makeError("no-calibration-data", "calibration needs at least one batch of inputs", model.sourcePath);
    std::unordered_map<std::string, AbsHistogram> histograms;
    for (const std::string &name : quantizedActivations(model))
        histograms[name];
    CpuExecutor executor(model);
    RangeObserver observer(model, histograms);
    RunOptions observed = options;
    observed.observer = &observer;
    for (const CalibrationBatch &batch : batches) {
        for (const auto &[name, value] : batch.feeds)
            observer.observe(name, value);
        if (auto result = executor.run(batch.feeds, observed); !result) {
            support::Error e = result.error();
            e.primary.message = "calibration batch " + batch.source + ": " + e.primary.message;
            return e;
        }
    }
    CalibrationTable table;
    table.settings = settings;
    table.batches = static_cast<int>(batches.size());
    for (const auto &[name, histogram] : histograms) {
        const double threshold = settings.method == CalibrationMethod::MinMax ? histogram.absMax()
                                                                              : histogram.percentile(settings.percentile);
        table.ranges[name] = {histogram.absMax(), threshold};
    }
    return table;
}

support::Expected<std::vector<CalibrationBatch>> calibrationBatches(const std::string &spec, const ir::Model &model,
                                                                    const std::map<std::string, Shape> &shapes)
{
    if (!spec.starts_with("random:"))
        return readCalibrationBatches(model, spec);
    const std::string rest = spec.substr(7);
    const std::size_t colon = rest.find(':');
    const std::string countText = rest.substr(0, colon); // named: `end` points into it below
    char *end = nullptr;
    const long count = std::strtol(countText.c_str(), &end, 10);
    const bool countOk = end && *end == '\0' && colon != 0 && count >= 1 && count <= 100000;
    std::uint64_t seed = 0;
    bool seedOk = true;
    if (colon != std::string::npos) {
        const std::string seedText = rest.substr(colon + 1);
        seed = std::strtoull(seedText.c_str(), &end, 10);
        seedOk = !seedText.empty() && end && *end == '\0';
    }
    if (!countOk || !seedOk)
        return makeError("bad-calibration", "calibration '" + spec + "' is not DIR or random:N[:SEED] with N >= 1");
    return randomCalibrationBatches(model, static_cast<int>(count), seed, shapes);
}

} // namespace portolan::runtime::cpu
