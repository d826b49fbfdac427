// Makes the CUDA executor available to core code as the plugged executor "cuda"
// (runtime/ExecutorRegistry.h). Called once by the program when it starts.
#pragma once

namespace portolan::runtime::cuda {

void registerCudaExecutor();

} // namespace portolan::runtime::cuda
