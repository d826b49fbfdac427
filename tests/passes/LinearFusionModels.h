// Shared by the linear-fusion and lower-precision tests: small models in ONNX text syntax.
#pragma once

#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "passes/PassManager.h"

#include <QTest>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace portolan::test::linear {

/// n deterministic values in [lo, hi), as ONNX text "{a, b, …}".
inline std::string values(int n, double lo, double hi, unsigned seed)
{
    std::string out = "{";
    unsigned state = seed * 2654435761u + 12345u;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        const double v = lo + (hi - lo) * static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%s%.4f", i ? ", " : "", v);
        out += buffer;
    }
    return out + "}";
}

/// The batch-norm statistics of `c` channels as initializers "gamma, beta, mean, var".
inline std::string bnStats(int c)
{
    const std::string n = std::to_string(c);
    return "float[" + n + "] gamma = " + values(c, 0.5, 1.5, 11) + ", float[" + n + "] beta = " + values(c, -1, 1, 12) +
           ", float[" + n + "] mean = " + values(c, -1, 1, 13) + ", float[" + n + "] var = " + values(c, 0.5, 2, 14);
}

/// A 3-filter 3×3 Conv on x float[1,2,5,5] (weights w, bias b), then `body` (which reads c).
inline std::string convModel(const std::string &outputs, const std::string &extraInputs, const std::string &extraInits,
                      const std::string &body, int opset = 17)
{
    return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n"
           "g (float[1,2,5,5] x" + extraInputs + ") => (" + outputs + ")\n"
           "<float[3,2,3,3] w = " + values(54, -1, 1, 1) + ", float[3] b = " + values(3, -1, 1, 2) +
           (extraInits.empty() ? "" : ", " + extraInits) + ">\n"
           "{\n    c = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n" + body + "}\n";
}

inline std::unique_ptr<ir::Model> load(const std::string &text) { return test::modelFromText(text); }

inline passes::PassManagerOptions standardOnly()
{
    passes::PassManagerOptions options;
    options.standardOnly = true;
    return options;
}

/// The first live main-graph node of `opType` (in any domain), or nullptr.
inline const ir::Node *findNode(const ir::Model &model, const std::string &opType)
{
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes)
        if (model.node(n).alive && model.node(n).opType == opType)
            return &model.node(n);
    return nullptr;
}

using Ops = std::map<std::string, int>;


} // namespace portolan::test::linear
