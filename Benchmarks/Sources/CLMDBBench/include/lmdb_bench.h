#ifndef STRATA_LMDB_BENCH_H
#define STRATA_LMDB_BENCH_H
// The benchmark workloads written straight against LMDB's C API: the physical limit Strata is
// compared with. The record is the benchmarks' Item: key = id (8 bytes, sign bit flipped, big-endian,
// as Strata encodes it), value = score (8 bytes) + name (40 bytes).

#include <stddef.h>
#include <stdint.h>

typedef struct bench_env bench_env;

/// Opens an environment at `path` (a file; MDB_NOSUBDIR). `nosync`: MDB_NOSYNC. Returns NULL on failure
/// and sets *error to LMDB's code.
bench_env *bench_open(const char *path, int nosync, size_t map_size, int *error);
void bench_close(bench_env *env);

/// Inserts ids first..<first+count, `per_txn` per write transaction, appending (MDB_APPEND) since the
/// ids ascend. Returns 0 or LMDB's error code.
int bench_insert(bench_env *env, int64_t first, int64_t count, int64_t per_txn, const char name[40]);

/// Adds 1 to the score of every record in one write transaction (cursor walk, MDB_CURRENT put).
int bench_update_all(bench_env *env);

/// Reads the score of each id, in one read transaction; adds them to *sum.
int bench_random_reads(bench_env *env, const int64_t *ids, int64_t count, double *sum);

/// Walks every record with a cursor in one read transaction, adding the scores to *sum.
int bench_scan(bench_env *env, double *sum, int64_t *rows);

/// Walks every record with a cursor in one read transaction, adding the scores above `threshold` to
/// *sum and counting them in *rows (a query's scan-and-test).
int bench_scan_filtered(bench_env *env, double threshold, double *sum, int64_t *rows);

/// For ids 0..<count in one write transaction: reads the record, and writes it back when its new value
/// differs (the score + 1 for the first half of the ids, unchanged for the rest): an upsert that
/// writes only what changed.
int bench_upsert_half_changed(bench_env *env, int64_t count, const char name[40]);

/// The vector peers' (V1–V3) dot product of two vectors of `count` floats, with AVX2 and FMA where
/// the CPU has them, as Strata's index computes it (Sources/CVectorMath): the yardsticks compute as
/// fast as the index, so a ratio measures the search, not the instructions. 0 from `bench_has_wide`:
/// the caller computes with Swift's SIMD.
int bench_has_wide(void);
float bench_dot_wide(const void *a, const void *b, size_t count);

#endif
