#include "CVectorMath.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int strata_vector_has_wide(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int fma = (ecx & bit_FMA) != 0, avx = (ecx & bit_AVX) != 0, osxsave = (ecx & bit_OSXSAVE) != 0;
    if (!(fma && avx && osxsave)) return 0;
    // The system must save the YMM registers on a switch (XCR0's SSE and AVX state bits).
    unsigned int low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 6) != 6) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & bit_AVX2) != 0;
}

// Four accumulators of eight lanes: the fused multiply-adds of one do not wait on the last.
__attribute__((target("avx2,fma"))) static inline float strata_sum8(__m256 sum) {
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_movehdup_ps(half));
    return _mm_cvtss_f32(half);
}

__attribute__((target("avx2,fma"))) float strata_vector_dot_wide(const void *a, const void *b, size_t count) {
    const float *x = (const float *)a, *y = (const float *)b;
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    size_t index = 0;
    for (; index + 32 <= count; index += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + index), _mm256_loadu_ps(y + index), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + index + 8), _mm256_loadu_ps(y + index + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + index + 16), _mm256_loadu_ps(y + index + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + index + 24), _mm256_loadu_ps(y + index + 24), s3);
    }
    for (; index + 8 <= count; index += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + index), _mm256_loadu_ps(y + index), s0);
    float sum = strata_sum8(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; index < count; index++) sum += x[index] * y[index];
    return sum;
}

__attribute__((target("avx2,fma"))) float strata_vector_squared_distance_wide(
    const void *a, const void *b, size_t count) {
    const float *x = (const float *)a, *y = (const float *)b;
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    size_t index = 0;
    for (; index + 32 <= count; index += 32) {
        __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + index), _mm256_loadu_ps(y + index));
        __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + index + 8), _mm256_loadu_ps(y + index + 8));
        __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(x + index + 16), _mm256_loadu_ps(y + index + 16));
        __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(x + index + 24), _mm256_loadu_ps(y + index + 24));
        s0 = _mm256_fmadd_ps(d0, d0, s0);
        s1 = _mm256_fmadd_ps(d1, d1, s1);
        s2 = _mm256_fmadd_ps(d2, d2, s2);
        s3 = _mm256_fmadd_ps(d3, d3, s3);
    }
    for (; index + 8 <= count; index += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + index), _mm256_loadu_ps(y + index));
        s0 = _mm256_fmadd_ps(d, d, s0);
    }
    float sum = strata_sum8(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; index < count; index++) {
        float d = x[index] - y[index];
        sum += d * d;
    }
    return sum;
}
#else
// Elsewhere Swift's SIMD is the widest path (NEON on ARMv8 is its baseline).
int strata_vector_has_wide(void) { return 0; }
float strata_vector_dot_wide(const void *a, const void *b, size_t count) {
    (void)a;
    (void)b;
    (void)count;
    return 0;
}
float strata_vector_squared_distance_wide(const void *a, const void *b, size_t count) {
    (void)a;
    (void)b;
    (void)count;
    return 0;
}
#endif
