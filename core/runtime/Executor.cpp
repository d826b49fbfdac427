// The executor contract (see Executor.h): the memory default and the feed check every executor shares.
#include "runtime/Executor.h"

#include "ir/Type.h"

#include <map>
#include <sys/resource.h>
#include <unistd.h>

namespace portolan::runtime {

using support::makeError;

namespace {

support::Status checkFeed(const ir::Value &input, const RuntimeValue &value, const std::string &model,
                                 bool checkShape)
{
    const onnx::TypeProto &type = input.type();
    if (!type.has_tensor_type())
        return support::Status::ok();
    if (!value.isTensor())
        return makeError("bad-feed", "input '" + input.name + "' expects a tensor, was given " + value.describe(), model);
    const int expected = type.tensor_type().elem_type();
    if (expected && expected != value.tensor.dataType())
        return makeError("bad-feed", "input '" + input.name + "' expects " + ir::dataTypeName(expected) + ", was given " +
                                         value.describe(), model);
    const ir::Shape shape = input.shape();
    if (!shape.dims || !checkShape)
        return support::Status::ok();
    if (shape.dims->size() != value.tensor.rank())
        return makeError("bad-feed", "input '" + input.name + "' expects shape " + shape.str() + ", was given " +
                                         value.describe(), model);
    for (std::size_t i = 0; i < shape.dims->size(); ++i)
        if ((*shape.dims)[i].isStatic() && (*shape.dims)[i].extent() != value.tensor.dim(i))
            return makeError("bad-feed", "input '" + input.name + "' expects shape " + shape.str() + ", was given " +
                                             value.describe(), model);
    return support::Status::ok();
}

} // namespace

std::size_t defaultMaxMemory()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGE_SIZE);
    std::size_t cap = pages <= 0 || pageSize <= 0 ? std::size_t(8) << 30
                                                   : static_cast<std::size_t>(pages) * static_cast<std::size_t>(pageSize) / 2;
    // Under an address-space limit (ulimit -v) an allocation past it fails instead of being refused
    // by the cap with the node's name: keep within half of it (code, libraries and weights take the rest).
    rlimit addressSpace{};
    if (::getrlimit(RLIMIT_AS, &addressSpace) == 0 && addressSpace.rlim_cur != RLIM_INFINITY)
        cap = std::min(cap, static_cast<std::size_t>(addressSpace.rlim_cur / 2));
    return cap;
}

support::Expected<std::vector<const RuntimeValue *>> bindFeeds(const ir::Model &model, const NamedValues &feeds,
                                                              bool checkShapes)
{
    const ir::Graph &main = model.graph(model.mainGraph());
    std::map<std::string, const RuntimeValue *> byName;
    for (const auto &[name, value] : feeds)
        byName[name] = &value;
    std::vector<const RuntimeValue *> bound(main.inputs.size(), nullptr);
    std::string missing;
    for (std::size_t i = 0; i < main.inputs.size(); ++i) {
        const ir::Value &input = model.value(main.inputs[i]);
        auto it = byName.find(input.name);
        if (it == byName.end()) {
            if (!input.isInitializer())
                missing += (missing.empty() ? "" : ", ") + input.name;
            continue;
        }
        if (auto st = checkFeed(input, *it->second, model.sourcePath, checkShapes); !st)
            return st.error();
        bound[i] = it->second;
        byName.erase(it);
    }
    if (!missing.empty())
        return makeError("missing-feed", "no value given for input(s): " + missing, model.sourcePath);
    if (!byName.empty())
        return makeError("unknown-feed", "the model has no input named '" + byName.begin()->first + "'", model.sourcePath);
    return bound;
}

} // namespace portolan::runtime
