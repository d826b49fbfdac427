// Pipeline text: a small recursive-descent reader over "name{k=v k=v},name".
#include "passes/Pipeline.h"

#include "passes/Pass.h"

#include <cctype>

namespace portolan::passes {

std::string PassInvocation::str() const
{
    if (options.empty())
        return name;
    std::string out = name + "{";
    for (std::size_t i = 0; i < options.size(); ++i)
        out += (i ? " " : "") + options[i].first + "=" + options[i].second;
    return out + "}";
}

std::string Pipeline::str() const
{
    std::string out;
    for (std::size_t i = 0; i < passes.size(); ++i)
        out += (i ? "," : "") + passes[i].str();
    return out;
}

static std::string validPassNames()
{
    std::string out;
    for (const PassInfo &p : registeredPasses())
        out += (out.empty() ? "" : ", ") + p.name;
    return out;
}

static support::Error pipelineError(const std::string &message, std::string_view text, std::size_t at)
{
    return support::makeError("bad-pipeline",
                              message + " (at character " + std::to_string(at + 1) + " of \"" + std::string(text) + "\")");
}

static support::Status checkInvocation(const PassInvocation &invocation)
{
    const PassInfo *info = findPass(invocation.name);
    if (info == nullptr)
        return support::makeError("unknown-pass", "unknown pass '" + invocation.name + "'; the passes are: " + validPassNames());
    for (const auto &[key, value] : invocation.options) {
        bool known = false;
        std::string valid;
        for (const PassOption &o : info->options) {
            known = known || o.name == key;
            valid += (valid.empty() ? "" : ", ") + o.name;
        }
        if (!known)
            return support::makeError("unknown-pass-option",
                                      "pass '" + invocation.name + "' has no option '" + key + "'; " +
                                          (valid.empty() ? std::string("it takes none") : "its options are: " + valid));
    }
    return support::Status::ok();
}

support::Expected<Pipeline> parsePipeline(std::string_view text)
{
    Pipeline pipeline;
    std::size_t i = 0;
    auto isNameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
    while (i < text.size()) {
        PassInvocation invocation;
        const std::size_t nameStart = i;
        while (i < text.size() && isNameChar(text[i]))
            ++i;
        invocation.name = std::string(text.substr(nameStart, i - nameStart));
        if (invocation.name.empty())
            return pipelineError("expected a pass name", text, i);
        if (i < text.size() && text[i] == '{') {
            ++i;
            while (true) {
                while (i < text.size() && text[i] == ' ')
                    ++i;
                if (i < text.size() && text[i] == '}') {
                    ++i;
                    break;
                }
                const std::size_t keyStart = i;
                while (i < text.size() && isNameChar(text[i]))
                    ++i;
                const std::string key(text.substr(keyStart, i - keyStart));
                if (key.empty() || i >= text.size() || text[i] != '=')
                    return pipelineError("expected option=value in the braces of '" + invocation.name + "'", text, i);
                ++i;
                const std::size_t valueStart = i;
                while (i < text.size() && text[i] != ' ' && text[i] != '}' && text[i] != '{')
                    ++i;
                if (i >= text.size())
                    return pipelineError("unclosed '{' after '" + invocation.name + "'", text, i);
                if (text[i] == '{')
                    return pipelineError("'{' inside an option value", text, i);
                invocation.options.emplace_back(key, std::string(text.substr(valueStart, i - valueStart)));
            }
        }
        if (auto st = checkInvocation(invocation); !st)
            return st.error();
        pipeline.passes.push_back(std::move(invocation));
        if (i < text.size()) {
            if (text[i] != ',')
                return pipelineError("expected ',' between passes", text, i);
            ++i;
            if (i == text.size())
                return pipelineError("the pipeline ends with ','", text, i);
        }
    }
    if (pipeline.passes.empty())
        return support::makeError("bad-pipeline", "the pipeline is empty; the passes are: " + validPassNames());
    return pipeline;
}

// Cleanup runs first and again at the end: fusions leave constants and dead shape subgraphs behind.
static constexpr const char *kCleanup =
    "infer-shapes,fold-constants,eliminate-identity,canonicalize,eliminate-common-subexpressions,eliminate-dead";
static constexpr const char *kFusions =
    "fuse-conv-bn,fuse-conv-add,fuse-conv-activation,fuse-gelu,fuse-layer-norm,fuse-rms-norm,fuse-attention,"
    "fuse-matmul-add,fuse-skip-layer-norm,fuse-gemm-activation,fuse-elementwise,eliminate-dead,infer-shapes";

support::Expected<Pipeline> presetPipeline(int level, const std::string &precision)
{
    if (level < 1 || level > 3)
        return support::makeError("bad-level", "optimization levels are -O1 (cleanup), -O2 (+ fusions) and -O3 (+ precision lowering)");
    std::string text = kCleanup;
    if (level >= 2)
        text += std::string(",") + kFusions;
    if (level == 3 && !precision.empty()) {
        if (precision != "fp16" && precision != "bf16" && precision != "int8")
            return support::makeError("bad-precision", "precision '" + precision + "' is not one of fp16, bf16, int8");
        text += ",lower-precision{to=" + precision + "},eliminate-common-subexpressions,eliminate-dead,infer-shapes";
    }
    return parsePipeline(text);
}

} // namespace portolan::passes
