/* fuzz_util: what the fuzz targets (tests/fuzz/fuzz_*.c) share. Each target defines
 * LLVMFuzzerTestOneInput(); libFuzzer drives it (build_and_run.sh), and replay_corpus.c
 * runs the seed corpus through it in the normal test suite.
 *
 * Targets never print: what the code under test says goes to /dev/null or is dropped.
 * Files they write live in one private folder per process (fuzz_util_dir()), removed
 * at exit. Every function here aborts on failure: a broken harness must not pass for a
 * clean run.
 */
#ifndef TRACER_FUZZ_UTIL_H
#define TRACER_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The seed corpus (tests/fuzz/corpus), where the fixed inputs of the CTF targets live. */
#ifndef FUZZ_CORPUS_DIR
#error "compile the fuzz targets with -DFUZZ_CORPUS_DIR=\"<repo>/tests/fuzz/corpus\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* This process's scratch folder (created on first use, removed at exit). */
const char *fuzz_util_dir(void);
/* Creates or truncates dir/name with the bytes given; returns the path (static buffer). */
const char *fuzz_util_write(const char *dir, const char *name, const void *data, size_t size);
/* Copies the corpus file `corpus_path` (relative to FUZZ_CORPUS_DIR) to dir/name. */
void fuzz_util_copy(const char *corpus_path, const char *dir, const char *name);
/* A copy of data with a NUL after it; the caller frees it. */
char *fuzz_util_cstring(const uint8_t *data, size_t size);
/* /dev/null, opened once. */
FILE *fuzz_util_null(void);

#endif
