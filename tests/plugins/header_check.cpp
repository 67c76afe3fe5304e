// The same check as header_check.c, compiled as C++11: one body, so that the
// two languages cannot drift apart.
#include "header_check.c"
