/*
 * libcups peer of `workbench bench ipp`, which compiles and runs it in the same run.
 *   read:  ippNew + ippReadIO + ippDelete of one message held in memory: libcups builds the whole
 *          attribute tree (names and values copied into ipp_attribute_t nodes and its string pool).
 *   write: ippWriteIO of that tree, already built, into a memory buffer: serialisation only.
 * Same method as the Swift side: the batch size doubles until a batch takes at least 40 ms,
 * then 7 batches are timed with CLOCK_MONOTONIC and the median is printed.
 *
 * Usage: ipp_bench FILE [--json]
 * With tools/libcups-bench/malloc_count.so preloaded it also prints allocations per call.
 */
#define _GNU_SOURCE
#include <cups/ipp.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const unsigned char *data;
    size_t size;
    size_t position;
} reader_t;

typedef struct {
    unsigned char *data;
    size_t capacity;
    size_t size;
} writer_t;

static ssize_t read_cb(void *context, ipp_uchar_t *buffer, size_t bytes) {
    reader_t *reader = context;
    size_t left = reader->size - reader->position;
    if (bytes > left) bytes = left;
    memcpy(buffer, reader->data + reader->position, bytes);
    reader->position += bytes;
    return (ssize_t)bytes;
}

static ssize_t write_cb(void *context, ipp_uchar_t *buffer, size_t bytes) {
    writer_t *writer = context;
    if (writer->size + bytes > writer->capacity) return -1;
    memcpy(writer->data + writer->size, buffer, bytes);
    writer->size += bytes;
    return (ssize_t)bytes;
}

static const unsigned char *message;
static size_t message_size;
static ipp_t *decoded;
static writer_t writer;
static volatile long sink;

static void decode_batch(long count) {
    for (long i = 0; i < count; i++) {
        reader_t reader = {message, message_size, 0};
        ipp_t *ipp = ippNew();
        if (ippReadIO(&reader, read_cb, 1, NULL, ipp) != IPP_STATE_DATA) {
            fprintf(stderr, "ippReadIO failed\n");
            exit(1);
        }
        sink += ippGetRequestId(ipp);
        ippDelete(ipp);
    }
}

static void encode_batch(long count) {
    for (long i = 0; i < count; i++) {
        writer.size = 0;
        ippSetState(decoded, IPP_STATE_IDLE);
        if (ippWriteIO(&writer, write_cb, 1, NULL, decoded) != IPP_STATE_DATA) {
            fprintf(stderr, "ippWriteIO failed\n");
            exit(1);
        }
        sink += (long)writer.size;
    }
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ns(void (*batch)(long)) {
    long count = 1;
    for (;;) {
        double start = now_ns();
        batch(count);
        if (now_ns() - start >= 40e6 || count >= (1L << 30)) break;
        count *= 2;
    }
    batch(count / 4 + 1);
    double samples[7];
    for (int round = 0; round < 7; round++) {
        double start = now_ns();
        batch(count);
        samples[round] = (now_ns() - start) / (double)count;
    }
    qsort(samples, 7, sizeof samples[0], compare);
    return samples[3];
}

static double allocations(void (*batch)(long)) {
    unsigned long long (*counter)(void) = (unsigned long long (*)(void))dlsym(RTLD_DEFAULT, "workbench_malloc_count");
    if (!counter) return -1;
    batch(1000);
    unsigned long long before = counter();
    batch(1000);
    return (double)(counter() - before) / 1000.0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [--json]\n", argv[0]);
        return 2;
    }
    int json = argc > 2 && strcmp(argv[2], "--json") == 0;
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 1;
    }
    static unsigned char buffer[1 << 22];
    message_size = fread(buffer, 1, sizeof buffer, file);
    fclose(file);
    message = buffer;

    reader_t reader = {message, message_size, 0};
    decoded = ippNew();
    if (ippReadIO(&reader, read_cb, 1, NULL, decoded) != IPP_STATE_DATA) {
        fprintf(stderr, "%s: libcups cannot decode it\n", argv[1]);
        return 1;
    }
    writer.capacity = message_size * 2 + 1024;
    writer.data = malloc(writer.capacity);

    double decode = median_ns(decode_batch);
    double encode = median_ns(encode_batch);
    double decode_allocations = allocations(decode_batch);
    double encode_allocations = allocations(encode_batch);
    int same = writer.size == message_size && memcmp(writer.data, message, message_size) == 0;
    if (json) {
        printf("{\"read_ns_per_message\": %.1f, \"write_ns_per_message\": %.1f, \"bytes\": %zu, "
               "\"write_reproduces_input\": %s", decode, encode, message_size, same ? "true" : "false");
        if (decode_allocations >= 0)
            printf(", \"read_allocations_per_message\": %.1f, \"write_allocations_per_message\": %.1f",
                   decode_allocations, encode_allocations);
        printf("}\n");
    } else {
        printf("libcups %s (%zu bytes): read %.1f ns, write %.1f ns", argv[1], message_size, decode, encode);
        if (decode_allocations >= 0) printf(", allocations %.1f/%.1f", decode_allocations, encode_allocations);
        printf("%s\n", same ? "" : " (re-encoded bytes differ from the input)");
    }
    return 0;
}
