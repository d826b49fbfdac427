// Random input generation (std::mt19937_64: the same seed gives the same tensor on every machine).
#include "runtime/InputGeneration.h"

#include "ir/Type.h"
#include "runtime/Dispatch.h"

#include <cstdlib>
#include <random>

namespace portolan::runtime {

using support::makeError;

support::Expected<Tensor> randomInput(const ir::Value &input, std::uint64_t seed,
                                      const std::map<std::string, Shape> &shapes)
{
    const int type = ir::tensorElementType(input.type());
    if (!input.type().has_tensor_type() || type == 0)
        return makeError("cannot-randomize", "input '" + input.name + "' is not a typed tensor (" +
                                                 ir::typeString(input.type()) + "): give it a file");
    Shape shape;
    if (auto given = shapes.find(input.name); given != shapes.end()) {
        shape = given->second;
    } else {
        const ir::Shape declared = input.shape();
        if (!declared.dims)
            return makeError("dynamic-input", "input '" + input.name + "' has an unknown rank: give its shape with --shape " +
                                                  input.name + "=D0,D1,…");
        std::string example; // the declared shape with each dynamic dim shown as <name>
        for (const ir::Dim &d : *declared.dims)
            example += (example.empty() ? "" : ",") + (d.isStatic() ? d.str() : "<" + d.str() + ">");
        for (std::size_t i = 0; i < declared.dims->size(); ++i) {
            const ir::Dim &d = (*declared.dims)[i];
            if (!d.isStatic())
                return makeError("dynamic-input", "input '" + input.name + "' has dynamic dim " + std::to_string(i) + " (" +
                                                      d.str() + ") in " + declared.str() + ": give its shape with --shape " +
                                                      input.name + "=" + example);
            shape.push_back(d.extent());
        }
    }
    for (const auto d : shape)
        if (d < 0)
            return makeError("bad-shape", "input '" + input.name + "': negative dim in " + shapeString(shape));

    std::mt19937_64 rng(seed);
    Tensor values = Tensor::zeros(onnx::TensorProto::DOUBLE, shape);
    const bool integer = kernels::visitInteger(type, []<typename T>() {}) || type == onnx::TensorProto::BOOL;
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, type == onnx::TensorProto::BOOL ? 1 : 9);
    double *out = values.mutableData<double>();
    for (std::int64_t i = 0; i < values.size(); ++i)
        out[i] = integer ? small(rng) : real(rng);
    if (type == onnx::TensorProto::STRING)
        return makeError("cannot-randomize", "input '" + input.name + "' holds strings: give it a file");
    return kernels::convertTensor(values, type);
}

support::Expected<std::map<std::string, Shape>> parseShapeSpecs(const std::vector<std::string> &specs)
{
    std::map<std::string, Shape> shapes;
    for (const std::string &spec : specs) {
        const auto eq = spec.find('=');
        bool ok = eq != std::string::npos && eq > 0;
        Shape dims;
        std::size_t start = ok ? eq + 1 : spec.size();
        while (ok && start <= spec.size()) {
            const std::size_t comma = std::min(spec.find(',', start), spec.size());
            std::string part = spec.substr(start, comma - start);
            part.erase(0, part.find_first_not_of(" \t"));
            part.erase(part.find_last_not_of(" \t") + 1);
            if (!part.empty()) {
                char *end = nullptr;
                const long long d = std::strtoll(part.c_str(), &end, 10);
                ok = *end == '\0' && d >= 0;
                dims.push_back(d);
            }
            start = comma + 1;
        }
        if (!ok || dims.empty())
            return makeError("bad-shape", "shape '" + spec + "' is not NAME=D0,D1,…");
        shapes[spec.substr(0, eq)] = std::move(dims);
    }
    return shapes;
}

} // namespace portolan::runtime
