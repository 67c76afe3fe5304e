#include "store/rows.h"
