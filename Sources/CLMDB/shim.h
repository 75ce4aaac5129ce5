#ifndef STRATA_CLMDB_SHIM_H
#define STRATA_CLMDB_SHIM_H
// Only Sources/Strata/Storage imports this module. It adds nothing to LMDB's own header.
#include <lmdb.h>
#endif
