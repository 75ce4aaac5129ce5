#ifndef STRATA_CVECTORMATH_H
#define STRATA_CVECTORMATH_H
// Distances between vectors of floats with the CPU's widest instructions: AVX2 and FMA on x86-64,
// chosen at run time (a binary built for any x86-64 runs them only where the CPU has them). Swift's
// SIMD types compile for the baseline (SSE2, four lanes, no fused multiply-add), and a vector search
// spends half its time here.
#include <stddef.h>

/// 1 when the CPU and the system can run `strata_vector_dot_wide` and
/// `strata_vector_squared_distance_wide` (x86-64 with AVX2, FMA and the system saving the wide
/// registers), else 0; callers then compute with Swift's SIMD.
int strata_vector_has_wide(void);

/// The dot product of two vectors of `count` floats (any alignment). Only where
/// `strata_vector_has_wide()` is 1.
float strata_vector_dot_wide(const void *a, const void *b, size_t count);

/// The squared euclidean distance between two vectors of `count` floats (any alignment). Only where
/// `strata_vector_has_wide()` is 1.
float strata_vector_squared_distance_wide(const void *a, const void *b, size_t count);

#endif
