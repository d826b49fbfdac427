// spdlog configuration: messages go to stderr so that stdout stays clean for --json.
#include "support/Log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace portolan::support {

void configureLogging(LogLevel level)
{
    auto logger = spdlog::get("portolan"); // a command may refine the level set at start-up
    if (!logger) {
        logger = spdlog::stderr_color_mt("portolan");
        logger->set_pattern("%^%l%$: %v");
    }
    switch (level) {
    case LogLevel::Quiet: logger->set_level(spdlog::level::warn); break;
    case LogLevel::Normal: logger->set_level(spdlog::level::info); break;
    case LogLevel::Verbose: logger->set_level(spdlog::level::debug); break;
    }
    spdlog::set_default_logger(logger);
}

} // namespace portolan::support
