// Logging set-up (spdlog to stderr): one call at start-up picks the level from --verbose/--quiet.
#pragma once

namespace portolan::support {

enum class LogLevel { Quiet, Normal, Verbose };

/// Configures the default logger: warnings and errors only for Quiet, info for Normal, debug for Verbose.
/// May be called again to change the level.
void configureLogging(LogLevel level);

} // namespace portolan::support
