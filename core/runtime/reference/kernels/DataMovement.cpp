// (being written)
#include "runtime/reference/KernelContext.h"
