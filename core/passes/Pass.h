// A pass: a named graph transformation with typed options, run by the pass manager through a Rewriter.
// Every pass class is declared here from Passes.def and defined in its own file.
#pragma once

#include "ir/Model.h"
#include "passes/Rewriter.h"
#include "support/Expected.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace portolan::passes {

/// One option a pass declares, with its default as text.
struct PassOption {
    std::string name;
    std::string defaultValue;
    std::string help;
};

/// Option values of one pass invocation: the given ones over the declared defaults.
class PassOptions {
public:
    PassOptions() = default;
    explicit PassOptions(std::map<std::string, std::string> values) : m_values(std::move(values)) {}

    const std::string &text(const std::string &name) const;
    /// The option parsed as a number; fails naming the option and its text.
    support::Expected<double> number(const std::string &name) const;
    support::Expected<std::int64_t> integer(const std::string &name) const;

private:
    std::map<std::string, std::string> m_values;
};

/// What a pass sees while it runs.
struct PassContext {
    ir::Model &model;
    Rewriter &rewriter;
    const PassOptions &options;
    /// Only standard ONNX ops may be created (no ai.portolan fused ops): `--standard-only`.
    bool standardOnly = false;
};

class Pass {
public:
    virtual ~Pass() = default;
    /// A non-match is not an error; an error means the pass could not do its job (bad option,
    /// a model it cannot handle) and the pipeline stops with the model untouched.
    virtual support::Status run(PassContext &context) = 0;
};

#define PORTOLAN_OPTION(name, defaultValue, help) PassOption{name, defaultValue, help}
#define PORTOLAN_PASS(cls, name, summary, ...)                                                   \
    class cls final : public Pass {                                                              \
    public:                                                                                      \
        support::Status run(PassContext &context) override;                                      \
    };
#include "passes/Passes.def"
#undef PORTOLAN_PASS

/// A registered pass: its name, summary, options and how to make one.
struct PassInfo {
    std::string name;
    std::string summary;
    std::vector<PassOption> options;
    std::function<std::unique_ptr<Pass>()> create;
};

/// Every pass of Passes.def, in its order.
const std::vector<PassInfo> &registeredPasses();
/// The pass named `name`, or nullptr.
const PassInfo *findPass(const std::string &name);

} // namespace portolan::passes
