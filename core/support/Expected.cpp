// Construction helpers for Error.
#include "support/Expected.h"

namespace portolan::support {

Error makeError(std::string code, std::string message, std::string model, std::string node,
                std::string value)
{
    Error error;
    error.primary.severity = Severity::Error;
    error.primary.code = std::move(code);
    error.primary.message = std::move(message);
    error.primary.model = std::move(model);
    error.primary.node = std::move(node);
    error.primary.value = std::move(value);
    return error;
}

} // namespace portolan::support
