// The plugged executors' registry (see ExecutorRegistry.h).
#include "runtime/ExecutorRegistry.h"

#include <map>
#include <mutex>

namespace portolan::runtime {

namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::string, PluggedExecutorFactory> factories;
    std::map<std::string, ExecutorDescriber> describers;
};

Registry &registry()
{
    static Registry r;
    return r;
}

} // namespace

void registerExecutor(const std::string &name, PluggedExecutorFactory factory, ExecutorDescriber describe)
{
    Registry &r = registry();
    const std::lock_guard lock(r.mutex);
    r.factories[name] = factory;
    r.describers[name] = describe;
}

support::Error missingExecutor(const std::string &name, const std::string &model)
{
    if (name == "cuda")
        return support::makeError("no-executor", "this build of Portolan has no CUDA executor (nvcc was not found when it was built)",
                                  model);
    return support::makeError("no-executor", "this build of Portolan has no " + name + " executor", model);
}

std::string describeExecutor(const std::string &name)
{
    ExecutorDescriber describe = nullptr;
    {
        Registry &r = registry();
        const std::lock_guard lock(r.mutex);
        if (const auto it = r.describers.find(name); it != r.describers.end())
            describe = it->second;
    }
    return describe ? describe() : std::string();
}

PluggedExecutorFactory findExecutor(const std::string &name)
{
    Registry &r = registry();
    const std::lock_guard lock(r.mutex);
    const auto it = r.factories.find(name);
    return it == r.factories.end() ? nullptr : it->second;
}

} // namespace portolan::runtime
