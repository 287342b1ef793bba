/*
 * Counting allocator for benchmarks: preload it (LD_PRELOAD=malloc_count.so)
 * and read workbench_malloc_count() — the number of malloc-family calls so far.
 * `workbench bench ipp` and ipp_bench look the symbol up with dlsym and report
 * allocations per message when it is there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

static unsigned long long allocation_count;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

/* dlsym itself may call calloc before real_calloc is known: serve it from a small static arena. */
static char bootstrap[4096];
static size_t bootstrap_used;

static void resolve(void) {
    if (real_malloc) return;
    real_calloc = NULL;
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
}

unsigned long long workbench_malloc_count(void) { return __atomic_load_n(&allocation_count, __ATOMIC_RELAXED); }

static void count(void) { __atomic_fetch_add(&allocation_count, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    resolve();
    count();
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        size_t total = (n * size + 15) & ~(size_t)15;
        if (bootstrap_used + total > sizeof bootstrap) return NULL;
        void *result = bootstrap + bootstrap_used;
        bootstrap_used += total;
        memset(result, 0, total);
        return result;
    }
    count();
    return real_calloc(n, size);
}

void *realloc(void *pointer, size_t size) {
    resolve();
    count();
    return real_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    resolve();
    count();
    return real_posix_memalign(result, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    count();
    return real_aligned_alloc(alignment, size);
}

void free(void *pointer) {
    static void (*real_free)(void *);
    if ((char *)pointer >= bootstrap && (char *)pointer < bootstrap + sizeof bootstrap) return;
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(pointer);
}
