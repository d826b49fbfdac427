// The registry is built once from Kernels.def: a map from (domain, op) to versions, newest last.
#include "runtime/reference/KernelRegistry.h"

#include "opset/OpVersions.h"

#include <algorithm>
#include <map>

namespace portolan::runtime {

namespace kernels {
#define PORTOLAN_KERNEL(domain, op, since, function) support::Status function(KernelContext &);
#include "runtime/reference/Kernels.def"
#undef PORTOLAN_KERNEL
} // namespace kernels

namespace {

using Versions = std::vector<std::pair<int, KernelFunction>>;

const std::map<std::pair<std::string, std::string>, Versions> &registry()
{
    static const auto table = [] {
        std::map<std::pair<std::string, std::string>, Versions> t;
#define PORTOLAN_KERNEL(domain, op, since, function) t[{domain, #op}].emplace_back(since, &kernels::function);
#include "runtime/reference/Kernels.def"
#undef PORTOLAN_KERNEL
        for (auto &[key, versions] : t)
            std::sort(versions.begin(), versions.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        return t;
    }();
    return table;
}

} // namespace

KernelFunction findReferenceKernel(const std::string &domain, const std::string &opType, int opset)
{
    const std::string key = domain == "ai.onnx" ? std::string() : domain;
    const auto it = registry().find({key, opType});
    if (it == registry().end())
        return nullptr;
    KernelFunction chosen = it->second.front().second;
    int chosenSince = it->second.front().first;
    for (const auto &[since, function] : it->second)
        if (since <= opset) {
            chosen = function;
            chosenSince = since;
        }
    // Models older than a kernel's first registered version (opset < 7 exports) use the oldest one:
    // the op existed then with the semantics the kernel implements or checks for itself. A newer
    // version whose inputs or attributes changed is not served by an older kernel.
    if (key.empty() && opset::semanticChangeAfter(opType, chosenSince, opset) != 0)
        return nullptr;
    return chosen;
}

std::vector<std::pair<std::string, std::string>> referenceKernelOps()
{
    std::vector<std::pair<std::string, std::string>> ops;
    for (const auto &[key, versions] : registry())
        ops.push_back(key);
    return ops;
}

} // namespace portolan::runtime
