#include "lmdb_bench.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

struct bench_env {
    MDB_env *env;
    MDB_dbi dbi;
};

typedef struct {
    double score;
    char name[40];
} record;

static void encode_key(int64_t id, unsigned char out[8]) {
    uint64_t flipped = (uint64_t)id ^ (UINT64_C(1) << 63);
    for (int i = 7; i >= 0; i--) {
        out[i] = (unsigned char)(flipped & 0xFF);
        flipped >>= 8;
    }
}

bench_env *bench_open(const char *path, int nosync, size_t map_size, int *error) {
    bench_env *bench = calloc(1, sizeof(bench_env));
    int rc = mdb_env_create(&bench->env);
    if (rc == 0) rc = mdb_env_set_mapsize(bench->env, map_size);
    if (rc == 0) rc = mdb_env_set_maxdbs(bench->env, 4);
    if (rc == 0) rc = mdb_env_open(bench->env, path, MDB_NOSUBDIR | MDB_NOTLS | (nosync ? MDB_NOSYNC : 0), 0600);
    if (rc == 0) {
        MDB_txn *txn;
        rc = mdb_txn_begin(bench->env, NULL, 0, &txn);
        if (rc == 0) rc = mdb_dbi_open(txn, "item", MDB_CREATE, &bench->dbi);
        if (rc == 0) rc = mdb_txn_commit(txn);
    }
    if (rc != 0) {
        mdb_env_close(bench->env);
        free(bench);
        *error = rc;
        return NULL;
    }
    return bench;
}

void bench_close(bench_env *bench) {
    mdb_env_close(bench->env);
    free(bench);
}

int bench_insert(bench_env *bench, int64_t first, int64_t count, int64_t per_txn, const char name[40]) {
    unsigned char key_bytes[8];
    record value;
    memcpy(value.name, name, 40);
    int64_t id = first;
    const int64_t end = first + count;
    while (id < end) {
        MDB_txn *txn;
        int rc = mdb_txn_begin(bench->env, NULL, 0, &txn);
        if (rc != 0) return rc;
        const int64_t batch_end = id + per_txn < end ? id + per_txn : end;
        for (; id < batch_end; id++) {
            encode_key(id, key_bytes);
            value.score = (double)id;
            MDB_val key = {8, key_bytes};
            MDB_val data = {sizeof(record), &value};
            rc = mdb_put(txn, bench->dbi, &key, &data, MDB_APPEND);
            if (rc != 0) {
                mdb_txn_abort(txn);
                return rc;
            }
        }
        rc = mdb_txn_commit(txn);
        if (rc != 0) return rc;
    }
    return 0;
}

int bench_update_all(bench_env *bench) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = mdb_txn_begin(bench->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    rc = mdb_cursor_open(txn, bench->dbi, &cursor);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    MDB_val key, data;
    record value;
    rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST);
    while (rc == 0) {
        memcpy(&value, data.mv_data, sizeof(record));
        value.score += 1;
        MDB_val updated = {sizeof(record), &value};
        rc = mdb_cursor_put(cursor, &key, &updated, MDB_CURRENT);
        if (rc != 0) break;
        rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT);
    }
    mdb_cursor_close(cursor);
    if (rc != MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

int bench_random_reads(bench_env *bench, const int64_t *ids, int64_t count, double *sum) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(bench->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    unsigned char key_bytes[8];
    double total = 0;
    for (int64_t i = 0; i < count; i++) {
        encode_key(ids[i], key_bytes);
        MDB_val key = {8, key_bytes};
        MDB_val data;
        rc = mdb_get(txn, bench->dbi, &key, &data);
        if (rc != 0) break;
        double score;
        memcpy(&score, data.mv_data, sizeof(double));
        total += score;
    }
    mdb_txn_abort(txn);
    *sum += total;
    return rc;
}

int bench_scan(bench_env *bench, double *sum, int64_t *rows) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = mdb_txn_begin(bench->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    rc = mdb_cursor_open(txn, bench->dbi, &cursor);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    MDB_val key, data;
    double total = 0;
    int64_t count = 0;
    rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST);
    while (rc == 0) {
        double score;
        memcpy(&score, data.mv_data, sizeof(double));
        total += score;
        count++;
        rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT);
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    *sum += total;
    *rows = count;
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int bench_scan_filtered(bench_env *bench, double threshold, double *sum, int64_t *rows) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = mdb_txn_begin(bench->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    rc = mdb_cursor_open(txn, bench->dbi, &cursor);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    MDB_val key, data;
    double total = 0;
    int64_t count = 0;
    rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST);
    while (rc == 0) {
        double score;
        memcpy(&score, data.mv_data, sizeof(double));
        if (score > threshold) {
            total += score;
            count++;
        }
        rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT);
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    *sum += total;
    *rows = count;
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int bench_upsert_half_changed(bench_env *bench, int64_t count, const char name[40]) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(bench->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    unsigned char key_bytes[8];
    for (int64_t id = 0; id < count && rc == 0; id++) {
        record value;
        value.score = (double)id + (id < count / 2 ? 1 : 0);
        memcpy(value.name, name, sizeof(value.name));
        encode_key(id, key_bytes);
        MDB_val key = {8, key_bytes};
        MDB_val data;
        rc = mdb_get(txn, bench->dbi, &key, &data);
        if (rc != 0) break;
        if (data.mv_size == sizeof(record) && memcmp(data.mv_data, &value, sizeof(record)) == 0) continue;
        MDB_val updated = {sizeof(record), &value};
        rc = mdb_put(txn, bench->dbi, &key, &updated, 0);
    }
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int bench_has_wide(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!((ecx & bit_FMA) && (ecx & bit_AVX) && (ecx & bit_OSXSAVE))) return 0;
    unsigned int low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 6) != 6 || __get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & bit_AVX2) != 0;
}

__attribute__((target("avx2,fma"))) float bench_dot_wide(const void *a, const void *b, size_t count) {
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
    __m256 sum8 = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(sum8), _mm256_extractf128_ps(sum8, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_movehdup_ps(half));
    float sum = _mm_cvtss_f32(half);
    for (; index < count; index++) sum += x[index] * y[index];
    return sum;
}
#else
int bench_has_wide(void) { return 0; }
float bench_dot_wide(const void *a, const void *b, size_t count) {
    (void)a;
    (void)b;
    (void)count;
    return 0;
}
#endif
