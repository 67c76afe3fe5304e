#include "store/rows.h"
#include "net/route.h"  // the deliberate forbidden edge
