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

// Relaxed atomics (plain moves on x86-64): threads that race to ask the CPU store the same answer.
static int strata_crc32c_hardware_known = -1;

/// Asks the CPU (once; out of line, so that callers inline only the check of the answer).
__attribute__((noinline, cold)) static int strata_crc32c_detect_hardware(void) {
    unsigned int eax, ebx, ecx, edx;
    int known = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2) != 0;
    __atomic_store_n(&strata_crc32c_hardware_known, known, __ATOMIC_RELAXED);
    return known;
}

static inline int strata_crc32c_has_hardware(void) {
    int known = __atomic_load_n(&strata_crc32c_hardware_known, __ATOMIC_RELAXED);
    return __builtin_expect(known > 0, 1) ? 1 : known == 0 ? 0 : strata_crc32c_detect_hardware();
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
static const int strata_crc32c_hardware_known = 1;
static inline int strata_crc32c_has_hardware(void) { return 1; }
#else
static inline uint32_t strata_crc32c_hardware(uint32_t crc, const unsigned char *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}
static const int strata_crc32c_hardware_known = 0;
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

/// The seal of a row (the CRC-32C of `key` followed by `row`), a byte at a time: out of line, as
/// machines without the instruction are rare.
__attribute__((noinline)) static uint32_t strata_row_seal_software(
    const void *key, size_t key_count, const void *row, size_t row_count) {
    uint32_t crc = strata_crc32c_software(~0u, (const unsigned char *)key, key_count);
    return ~strata_crc32c_software(crc, (const unsigned char *)row, row_count);
}

#if defined(__x86_64__)
#define STRATA_CRC32C_TARGET __attribute__((target("sse4.2")))
#define STRATA_CRC32C_WORD(crc, word) ((uint32_t)__builtin_ia32_crc32di((crc), (word)))
#else
#define STRATA_CRC32C_TARGET
#define STRATA_CRC32C_WORD(crc, word) __crc32cd((crc), (word))
#endif

#if defined(__x86_64__) || (defined(__aarch64__) && defined(__ARM_FEATURE_CRC32))
/// The seal with the crc32 instruction: in one function of the instruction's target, so that the
/// loops inline into it (a function of another target cannot inline them). An 8-byte key (an integer
/// key) is one instruction.
STRATA_CRC32C_TARGET static inline uint32_t strata_row_seal_hardware(
    const void *key, size_t key_count, const void *row, size_t row_count) {
    uint32_t crc;
    if (key_count == 8) {
        uint64_t word;
        memcpy(&word, key, 8);
        crc = STRATA_CRC32C_WORD(~0u, word);
    } else {
        crc = strata_crc32c_hardware(~0u, (const unsigned char *)key, key_count);
    }
    return ~strata_crc32c_hardware(crc, (const unsigned char *)row, row_count);
}

/// `strata_row_open` with the crc32 instruction, out of line: the caller keeps one call.
STRATA_CRC32C_TARGET __attribute__((noinline)) static ptrdiff_t strata_row_open_hardware(
    const void *key, size_t key_count, const void *stored, size_t stored_count) {
    if (stored_count <= 4) return -1;
    size_t row_count = stored_count - 4;
    uint32_t seal;
    memcpy(&seal, (const unsigned char *)stored + row_count, 4);  // little-endian, as x86-64 and ARMv8 Linux
    return seal == strata_row_seal_hardware(key, key_count, stored, row_count) ? (ptrdiff_t)row_count : -1;
}
#else
static inline uint32_t strata_row_seal_hardware(const void *key, size_t key_count, const void *row, size_t row_count) {
    return strata_row_seal_software(key, key_count, row, row_count);
}

static inline ptrdiff_t strata_row_open_hardware(
    const void *key, size_t key_count, const void *stored, size_t stored_count) {
    (void)key;
    (void)key_count;
    (void)stored;
    (void)stored_count;
    return -1;  // never called: strata_crc32c_has_hardware() is 0 here
}
#endif

/// The CRC-32C of `key` followed by `row`: a stored row's seal, in one call.
static inline uint32_t strata_row_seal(const void *key, size_t key_count, const void *row, size_t row_count) {
    if (strata_crc32c_has_hardware()) return strata_row_seal_hardware(key, key_count, row, row_count);
    return strata_row_seal_software(key, key_count, row, row_count);
}

/// `strata_row_open` before the CPU was asked, or without the instruction: out of line.
__attribute__((noinline)) static ptrdiff_t strata_row_open_other(
    const void *key, size_t key_count, const void *stored, size_t stored_count) {
    if (strata_crc32c_has_hardware()) return strata_row_open_hardware(key, key_count, stored, stored_count);
    if (stored_count <= 4) return -1;
    size_t row_count = stored_count - 4;
    uint32_t seal;
    memcpy(&seal, (const unsigned char *)stored + row_count, 4);
    return seal == strata_row_seal_software(key, key_count, stored, row_count) ? (ptrdiff_t)row_count : -1;
}

/// The length of the row inside `stored` (a row, then its 4-byte seal, little-endian) when the seal
/// is that of `key` and the row; -1 when it is not, or when `stored` has no room for a seal. What
/// inlines into the caller is one test and one call: every row read runs it.
static inline ptrdiff_t strata_row_open(const void *key, size_t key_count, const void *stored, size_t stored_count) {
    if (__builtin_expect(__atomic_load_n(&strata_crc32c_hardware_known, __ATOMIC_RELAXED) > 0, 1)) {
        return strata_row_open_hardware(key, key_count, stored, stored_count);
    }
    return strata_row_open_other(key, key_count, stored, stored_count);
}

/// Whether a sealed row's bytes start with the header of a row of `columns` columns (Sources/Strata/
/// Encoding/RowFormat.swift: an offset width of 1, 2 or 4, `columns` as 2 bytes little-endian, and
/// room for the offsets and the null bitmap).
static inline int strata_row_header_ok(const unsigned char *row, size_t size, size_t columns) {
    if (size < 3) return 0;
    size_t width = row[0];
    size_t count = (size_t)row[1] | ((size_t)row[2] << 8);
    if (width > 4 || !((0x16u >> width) & 1u) || count != columns) return 0;
    return size >= 3 + width * count + (count + 7) / 8;
}

/// What `strata_cursor_get_row` returns for a row whose seal does not match, and for a sealed row whose
/// header is not that of a row of the table: outside LMDB's codes (MDB_KEYEXIST -30799 to
/// MDB_LAST_ERRCODE) and errno's.
#define STRATA_ROW_DAMAGED (-30000)
#define STRATA_ROW_BAD_HEADER (-30001)

/// `mdb_cursor_get` on a table of sealed rows, then the row's seal and header (Sources/Strata/Encoding/
/// RowFormat.swift: an offset width of 1, 2 or 4, then `columns` as 2 bytes little-endian, and room for
/// the offsets and the null bitmap): `MDB_SUCCESS` with `data` shortened to the row when both hold,
/// `STRATA_ROW_DAMAGED` (`data` whole) when the seal does not match, `STRATA_ROW_BAD_HEADER` (`data`
/// the row) when the header is wrong, else LMDB's code. One call from Swift per row of a walk.
static inline int strata_row_check(const MDB_val *key, MDB_val *data, size_t columns);

static inline int strata_cursor_get_row(
    MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op, size_t columns) {
    int code = mdb_cursor_get(cursor, key, data, op);
    if (code != MDB_SUCCESS) return code;
    return strata_row_check(key, data, columns);
}

/// The checks of `strata_cursor_get_row` on a pair already read (an encrypted file's, once opened).
static inline int strata_row_check(const MDB_val *key, MDB_val *data, size_t columns) {
    ptrdiff_t length = strata_row_open(key->mv_data, key->mv_size, data->mv_data, data->mv_size);
    if (length < 0) return STRATA_ROW_DAMAGED;
    size_t size = (size_t)length;
    data->mv_size = size;
    return strata_row_header_ok((const unsigned char *)data->mv_data, size, columns) ? MDB_SUCCESS
                                                                                     : STRATA_ROW_BAD_HEADER;
}

/// The batch of `strata_cursor_get_rows` with the crc32 instruction: one function of the
/// instruction's target, so that the seal's loop inlines into the walk (no call per row).
///
/// Every pair of the batch is read before any seal is checked: when rows lie out of key order in
/// their pages (keys inserted at random, rows rewritten), each row is a cache miss, and reading the
/// next pairs does not wait on a row's bytes, so the misses overlap instead of coming one after the
/// other. A damaged row puts the cursor back on it, where a walk a row at a time would have stopped.
#if defined(__x86_64__) || (defined(__aarch64__) && defined(__ARM_FEATURE_CRC32))
STRATA_CRC32C_TARGET static size_t strata_cursor_get_rows_hardware(MDB_cursor *cursor, MDB_cursor_op op,
                                                                   size_t columns, MDB_val *keys, MDB_val *rows,
                                                                   size_t capacity, int *code) {
    size_t fetched = 0;
    int result = MDB_SUCCESS;
    for (; fetched < capacity; fetched++, op = MDB_NEXT) {
        result = mdb_cursor_get(cursor, &keys[fetched], &rows[fetched], op);
        if (result != MDB_SUCCESS) break;
        // The seal is the row's last 4 bytes: its line too, ahead of the check.
        __builtin_prefetch((const unsigned char *)rows[fetched].mv_data + rows[fetched].mv_size - 1, 0, 3);
    }
    for (size_t count = 0; count < fetched; count++) {
        const unsigned char *stored = (const unsigned char *)rows[count].mv_data;
        size_t stored_count = rows[count].mv_size;
        uint32_t seal;
        int damage = MDB_SUCCESS;
        if (stored_count <= 4 ||
            (memcpy(&seal, stored + stored_count - 4, 4),
             seal != strata_row_seal_hardware(keys[count].mv_data, keys[count].mv_size, stored, stored_count - 4))) {
            damage = STRATA_ROW_DAMAGED;
        } else {
            rows[count].mv_size = stored_count - 4;
            if (!strata_row_header_ok(stored, stored_count - 4, columns)) damage = STRATA_ROW_BAD_HEADER;
        }
        if (damage != MDB_SUCCESS) {
            if (count + 1 < fetched) {
                MDB_val key = keys[count], data;
                (void)mdb_cursor_get(cursor, &key, &data, MDB_SET);  // a key of this snapshot: found
            }
            *code = damage;
            return count;
        }
    }
    *code = result;
    return fetched;
}
#endif

/// `strata_cursor_get_row` for up to `capacity` rows in one call: `op` for the first, then `MDB_NEXT`,
/// each row's key and row written to `keys[i]`, `rows[i]`. Stops at the first pair that is not an
/// intact row: returns how many rows it wrote, and `*code` is `MDB_SUCCESS` when it filled the batch,
/// else the code of the pair that stopped it (`keys[count]`, `rows[count]` then hold a damaged row as
/// `strata_cursor_get_row` leaves it). A walk pays one call from Swift per batch, not one per row.
static inline size_t strata_cursor_get_rows(MDB_cursor *cursor, MDB_cursor_op op, size_t columns, MDB_val *keys,
                                            MDB_val *rows, size_t capacity, int *code) {
#if defined(__x86_64__) || (defined(__aarch64__) && defined(__ARM_FEATURE_CRC32))
    if (strata_crc32c_has_hardware()) {
        return strata_cursor_get_rows_hardware(cursor, op, columns, keys, rows, capacity, code);
    }
#endif
    size_t count = 0;
    while (count < capacity) {
        int result = strata_cursor_get_row(cursor, &keys[count], &rows[count], op, columns);
        if (result != MDB_SUCCESS) {
            *code = result;
            return count;
        }
        op = MDB_NEXT;
        count += 1;
    }
    *code = MDB_SUCCESS;
    return count;
}
/// Asks the CPU to bring the cache line at `address` in ahead of its read (a hint: never faults).
static inline void strata_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
