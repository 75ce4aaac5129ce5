#ifndef STRATA_CLMDB_SHIM_H
#define STRATA_CLMDB_SHIM_H
// Only Sources/Strata/Storage imports this module: LMDB's own header, and the CRC-32C (Castagnoli)
// that seals each stored row. The CPU's crc32 instruction where there is one (SSE 4.2 on x86-64, the
// CRC extension on ARMv8), else a table; all three give the same values.
#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
__attribute__((target("sse4.2"))) static inline uint32_t strata_crc32c_hardware(
    uint32_t crc, const unsigned char *bytes, size_t count) {
    uint64_t wide = crc;
    while (count >= 32) {  // unrolled: a row is a few dozen bytes, and the loop's own steps cost as much
        uint64_t words[4];
        memcpy(words, bytes, 32);
        wide = __builtin_ia32_crc32di(wide, words[0]);
        wide = __builtin_ia32_crc32di(wide, words[1]);
        wide = __builtin_ia32_crc32di(wide, words[2]);
        wide = __builtin_ia32_crc32di(wide, words[3]);
        bytes += 32;
        count -= 32;
    }
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    if (count >= 4) {
        uint32_t word;
        memcpy(&word, bytes, 4);
        narrow = __builtin_ia32_crc32si(narrow, word);
        bytes += 4;
        count -= 4;
    }
    if (count >= 2) {
        uint16_t half;
        memcpy(&half, bytes, 2);
        narrow = __builtin_ia32_crc32hi(narrow, half);
        bytes += 2;
        count -= 2;
    }
    if (count > 0) narrow = __builtin_ia32_crc32qi(narrow, *bytes);
    return narrow;
}

static inline int strata_crc32c_has_hardware(void) {
    static int known = -1;  // a benign race: every thread computes the same answer
    if (known < 0) {
        unsigned int eax, ebx, ecx, edx;
        known = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2) != 0;
    }
    return known;
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
static inline uint32_t strata_crc32c_hardware(uint32_t crc, const unsigned char *bytes, size_t count) {
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *bytes);
        bytes += 1;
        count -= 1;
    }
    return crc;
}
static inline int strata_crc32c_has_hardware(void) { return 1; }
#else
static inline uint32_t strata_crc32c_hardware(uint32_t crc, const unsigned char *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}
static inline int strata_crc32c_has_hardware(void) { return 0; }
#endif

/// The same CRC without special instructions, a byte at a time (the reflected polynomial 0x82F63B78).
static inline uint32_t strata_crc32c_software(uint32_t crc, const unsigned char *bytes, size_t count) {
    static uint32_t table[256];
    static int ready = 0;  // a benign race: every thread fills in the same values
    if (!ready) {
        for (uint32_t index = 0; index < 256; index++) {
            uint32_t value = index;
            for (int bit = 0; bit < 8; bit++) value = (value >> 1) ^ (0x82F63B78u & (0u - (value & 1u)));
            table[index] = value;
        }
        ready = 1;
    }
    while (count > 0) {
        crc = table[(crc ^ *bytes) & 0xFFu] ^ (crc >> 8);
        bytes += 1;
        count -= 1;
    }
    return crc;
}

/// Continues a CRC-32C over `count` bytes. Start with 0; the result of one call is the `crc` of the next.
static inline uint32_t strata_crc32c(uint32_t crc, const void *bytes, size_t count) {
    crc = ~crc;
    crc = strata_crc32c_has_hardware() ? strata_crc32c_hardware(crc, (const unsigned char *)bytes, count)
                                       : strata_crc32c_software(crc, (const unsigned char *)bytes, count);
    return ~crc;
}

#if defined(__x86_64__)
/// The seal with the crc32 instruction: both parts in one function of the instruction's target, so
/// that they inline into it (a function of another target cannot inline them).
__attribute__((target("sse4.2"))) static inline uint32_t strata_row_seal_hardware(
    const void *key, size_t key_count, const void *row, size_t row_count) {
    uint32_t crc = strata_crc32c_hardware(~0u, (const unsigned char *)key, key_count);
    return ~strata_crc32c_hardware(crc, (const unsigned char *)row, row_count);
}
#else
static inline uint32_t strata_row_seal_hardware(const void *key, size_t key_count, const void *row, size_t row_count) {
    uint32_t crc = strata_crc32c_hardware(~0u, (const unsigned char *)key, key_count);
    return ~strata_crc32c_hardware(crc, (const unsigned char *)row, row_count);
}
#endif

/// Whether `stored` (a row, then 4 bytes of seal, little-endian) carries the seal of `key` and its row.
static inline int strata_row_seal_matches(const void *key, size_t key_count, const void *stored, size_t stored_count);

/// The CRC-32C of `key` followed by `row`: a stored row's seal, in one call.
static inline uint32_t strata_row_seal(const void *key, size_t key_count, const void *row, size_t row_count) {
    if (strata_crc32c_has_hardware()) return strata_row_seal_hardware(key, key_count, row, row_count);
    uint32_t crc = strata_crc32c_software(~0u, (const unsigned char *)key, key_count);
    return ~strata_crc32c_software(crc, (const unsigned char *)row, row_count);
}

static inline int strata_row_seal_matches(const void *key, size_t key_count, const void *stored, size_t stored_count) {
    if (stored_count <= 4) return 0;
    uint32_t seal;
    memcpy(&seal, (const unsigned char *)stored + stored_count - 4, 4);  // little-endian, as x86-64 and ARMv8 Linux
    return seal == strata_row_seal(key, key_count, stored, stored_count - 4);
}
#endif
