/*
 * libcups peer of `workbench bench ipp`, which compiles and runs it in the same run.
 *   read:  ippNew + ippReadIO + ippDelete of one message held in memory: libcups builds the whole
 *          attribute tree (names and values copied into ipp_attribute_t nodes and its string pool).
 *   write: ippWriteIO of that tree, already built, into a memory buffer: serialisation only.
 *   build_write: ippNew, one ippAdd* call per attribute from typed values held in plain C arrays (taken from a
 *          decoded copy before timing: strings, integers, ranges, resolutions, dates, octet strings,
 *          collections built the same way, out-of-band values, separators), ippWriteIO into memory, ippDelete:
 *          what a server does to answer, and the like-for-like peer of the workbench's encode_built.
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

/* One attribute as typed values in memory: what a program holds before it builds a message. */
typedef struct spec_s spec_t;
typedef struct {
    int count;
    spec_t *attributes;
} collection_t;
struct spec_s {
    int separator; /* an empty group separator, not an attribute */
    ipp_tag_t group, tag;
    const char *name, *language;
    int count;
    const char **strings;
    int *integers, *uppers, *xres, *yres;
    char *booleans;
    ipp_res_t units;
    ipp_uchar_t date[11];
    const void **octets;
    int *octet_lengths;
    collection_t *collections;
};

static collection_t capture(ipp_t *ipp);

static spec_t capture_one(ipp_attribute_t *attribute) {
    spec_t spec;
    memset(&spec, 0, sizeof spec);
    if (!ippGetName(attribute)) {
        spec.separator = 1;
        return spec;
    }
    spec.group = ippGetGroupTag(attribute);
    spec.tag = ippGetValueTag(attribute);
    spec.name = strdup(ippGetName(attribute));
    spec.count = ippGetCount(attribute);
    int n = spec.count;
    switch (spec.tag) {
    case IPP_TAG_INTEGER:
    case IPP_TAG_ENUM:
        spec.integers = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) spec.integers[i] = ippGetInteger(attribute, i);
        break;
    case IPP_TAG_BOOLEAN:
        spec.booleans = malloc((size_t)n);
        for (int i = 0; i < n; i++) spec.booleans[i] = (char)ippGetBoolean(attribute, i);
        break;
    case IPP_TAG_RANGE:
        spec.integers = malloc(sizeof(int) * n);
        spec.uppers = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) spec.integers[i] = ippGetRange(attribute, i, &spec.uppers[i]);
        break;
    case IPP_TAG_RESOLUTION:
        spec.xres = malloc(sizeof(int) * n);
        spec.yres = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) spec.xres[i] = ippGetResolution(attribute, i, &spec.yres[i], &spec.units);
        break;
    case IPP_TAG_DATE:
        memcpy(spec.date, ippGetDate(attribute, 0), 11);
        break;
    case IPP_TAG_STRING:
        spec.octets = malloc(sizeof(void *) * n);
        spec.octet_lengths = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) {
            const void *data = ippGetOctetString(attribute, i, &spec.octet_lengths[i]);
            void *copy = malloc((size_t)spec.octet_lengths[i] + 1);
            memcpy(copy, data, (size_t)spec.octet_lengths[i]);
            spec.octets[i] = copy;
        }
        break;
    case IPP_TAG_BEGIN_COLLECTION:
        spec.collections = malloc(sizeof(collection_t) * n);
        for (int i = 0; i < n; i++) spec.collections[i] = capture(ippGetCollection(attribute, i));
        break;
    case IPP_TAG_TEXTLANG:
    case IPP_TAG_NAMELANG:
    case IPP_TAG_TEXT:
    case IPP_TAG_NAME:
    case IPP_TAG_KEYWORD:
    case IPP_TAG_URI:
    case IPP_TAG_URISCHEME:
    case IPP_TAG_CHARSET:
    case IPP_TAG_LANGUAGE:
    case IPP_TAG_MIMETYPE:
        spec.strings = malloc(sizeof(char *) * n);
        for (int i = 0; i < n; i++) {
            const char *language = NULL;
            spec.strings[i] = strdup(ippGetString(attribute, i, &language));
            if (i == 0 && language) spec.language = strdup(language);
        }
        break;
    default: /* out-of-band values: no-value, unknown, unsupported… */
        break;
    }
    return spec;
}

static collection_t capture(ipp_t *ipp) {
    collection_t collection = {0, NULL};
    for (ipp_attribute_t *a = ippFirstAttribute(ipp); a; a = ippNextAttribute(ipp)) collection.count++;
    collection.attributes = malloc(sizeof(spec_t) * (size_t)(collection.count ? collection.count : 1));
    int i = 0;
    for (ipp_attribute_t *a = ippFirstAttribute(ipp); a; a = ippNextAttribute(ipp)) collection.attributes[i++] = capture_one(a);
    return collection;
}

/* One ippAdd* call per attribute, from the typed values. */
static void build(ipp_t *ipp, const collection_t *collection) {
    for (int k = 0; k < collection->count; k++) {
        const spec_t *s = &collection->attributes[k];
        if (s->separator) {
            ippAddSeparator(ipp);
            continue;
        }
        ipp_attribute_t *added;
        switch (s->tag) {
        case IPP_TAG_INTEGER:
        case IPP_TAG_ENUM:
            ippAddIntegers(ipp, s->group, s->tag, s->name, s->count, s->integers);
            break;
        case IPP_TAG_BOOLEAN:
            ippAddBooleans(ipp, s->group, s->name, s->count, s->booleans);
            break;
        case IPP_TAG_RANGE:
            ippAddRanges(ipp, s->group, s->name, s->count, s->integers, s->uppers);
            break;
        case IPP_TAG_RESOLUTION:
            ippAddResolutions(ipp, s->group, s->name, s->count, s->units, s->xres, s->yres);
            break;
        case IPP_TAG_DATE:
            ippAddDate(ipp, s->group, s->name, s->date);
            break;
        case IPP_TAG_STRING:
            added = ippAddOctetString(ipp, s->group, s->name, s->octets[0], s->octet_lengths[0]);
            for (int i = 1; i < s->count; i++) ippSetOctetString(ipp, &added, i, s->octets[i], s->octet_lengths[i]);
            break;
        case IPP_TAG_BEGIN_COLLECTION: {
            ipp_t *members[s->count];
            for (int i = 0; i < s->count; i++) {
                members[i] = ippNew();
                build(members[i], &s->collections[i]);
            }
            ippAddCollections(ipp, s->group, s->name, s->count, (const ipp_t **)members);
            for (int i = 0; i < s->count; i++) ippDelete(members[i]); /* the attribute holds its own reference */
            break;
        }
        default: /* capture_one kept strings for exactly the string tags; every other tag is out-of-band */
            if (s->strings)
                ippAddStrings(ipp, s->group, s->tag, s->name, s->count, s->language, s->strings);
            else
                ippAddOutOfBand(ipp, s->group, s->tag, s->name);
            break;
        }
    }
}

static collection_t typed;
static int major_version, minor_version, operation_or_status, request_id;

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

static void build_write_batch(long count) {
    for (long i = 0; i < count; i++) {
        ipp_t *ipp = ippNew();
        ippSetVersion(ipp, major_version, minor_version);
        ippSetOperation(ipp, (ipp_op_t)operation_or_status); /* the same field as the status code */
        ippSetRequestId(ipp, request_id);
        build(ipp, &typed);
        writer.size = 0;
        if (ippWriteIO(&writer, write_cb, 1, NULL, ipp) != IPP_STATE_DATA) {
            fprintf(stderr, "ippWriteIO failed\n");
            exit(1);
        }
        sink += (long)writer.size;
        ippDelete(ipp);
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
    major_version = ippGetVersion(decoded, &minor_version);
    operation_or_status = ippGetOperation(decoded);
    request_id = ippGetRequestId(decoded);
    typed = capture(decoded);

    double decode = median_ns(decode_batch);
    double encode = median_ns(encode_batch);
    int same = writer.size == message_size && memcmp(writer.data, message, message_size) == 0;
    double build_write = median_ns(build_write_batch);
    int built_same = writer.size == message_size && memcmp(writer.data, message, message_size) == 0;
    double decode_allocations = allocations(decode_batch);
    double encode_allocations = allocations(encode_batch);
    double build_allocations = allocations(build_write_batch);
    if (json) {
        printf("{\"read_ns_per_message\": %.1f, \"write_ns_per_message\": %.1f, \"build_write_ns_per_message\": %.1f, "
               "\"bytes\": %zu, \"write_reproduces_input\": %s, \"build_write_reproduces_input\": %s",
               decode, encode, build_write, message_size, same ? "true" : "false", built_same ? "true" : "false");
        if (decode_allocations >= 0)
            printf(", \"read_allocations_per_message\": %.1f, \"write_allocations_per_message\": %.1f, "
                   "\"build_write_allocations_per_message\": %.1f",
                   decode_allocations, encode_allocations, build_allocations);
        printf("}\n");
    } else {
        printf("libcups %s (%zu bytes): read %.1f ns, write %.1f ns, build+write %.1f ns", argv[1], message_size, decode,
               encode, build_write);
        if (decode_allocations >= 0) printf(", allocations %.1f/%.1f/%.1f", decode_allocations, encode_allocations, build_allocations);
        printf("%s%s\n", same ? "" : " (re-encoded bytes differ from the input)",
               built_same ? "" : " (built bytes differ from the input)");
    }
    return 0;
}
