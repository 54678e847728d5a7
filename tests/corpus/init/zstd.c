/* A zstd client: compresses and decompresses a text, and compresses once into a buffer too
 * small, which the library reports through a size_t that ZSTD_isError() recognizes. */
#include <stdio.h>
#include <zstd.h>

int main(void) {
  static char src[8192], dst[16384], back[8192];
  for (size_t i = 0; i < sizeof src; i++)
    src[i] = "a text that compresses well "[i % 28];
  int bad = 0;
  for (int level = 1; level <= 3; level++) {
    size_t n = ZSTD_compress(dst, sizeof dst, src, sizeof src, level);
    size_t m = ZSTD_decompress(back, sizeof back, dst, n);
    bad += ZSTD_isError(n) || ZSTD_isError(m) || m != sizeof src;
  }
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  size_t small = ZSTD_compressCCtx(cctx, dst, 8, src, sizeof src, 1); /* too small */
  printf("into 8 bytes: %s\n", ZSTD_isError(small) ? ZSTD_getErrorName(small) : "fitted");
  ZSTD_freeCCtx(cctx);
  return bad;
}
