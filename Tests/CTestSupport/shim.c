// Empty: CTestSupport is header-only (its functions are static inline).
#include "CTestSupport.h"
