/* buffers: every kind of buffer transfer, with known sizes, each checked for correct data
 * (exit 1 when a byte is wrong): Write, Copy, Read, Fill, Map + Unmap (write and read
 * maps), WriteRect, ReadRect, CopyRect. All blocking or followed by clFinish. */
#include "cl_util.h"

#include <stdint.h>

enum { SIZE = 4096, HALF = SIZE / 2, QUARTER = SIZE / 4 };
enum { PITCH = 64, ROWS = 32 }; /* the rect buffer: 32 rows of 64 bytes */

static cl_command_queue queue;

static void finish(void) { clu_check(CL(clFinish, queue), "clFinish"); }

static void expect(int ok, const char *what) {
  if (!ok)
    clu_fail("buffers: wrong data after %s", what);
  printf("buffers: %s: ok\n", what);
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_mem a = clu_buffer(context, CL_MEM_READ_WRITE, SIZE);
  cl_mem b = clu_buffer(context, CL_MEM_READ_WRITE, SIZE);
  cl_mem r = clu_buffer(context, CL_MEM_READ_WRITE, PITCH * ROWS);

  uint32_t host[SIZE / 4], back[SIZE / 4];
  for (uint32_t i = 0; i < SIZE / 4; i++)
    host[i] = i * 2654435761u;

  /* Write, Copy, Read. */
  clu_check(CL_XFER(SIZE, clEnqueueWriteBuffer, queue, a, CL_TRUE, 0, SIZE, host, 0, NULL, NULL),
            "clEnqueueWriteBuffer");
  clu_check(CL_XFER(SIZE, clEnqueueCopyBuffer, queue, a, b, 0, 0, SIZE, 0, NULL, NULL),
            "clEnqueueCopyBuffer");
  finish();
  clu_check(CL_XFER(SIZE, clEnqueueReadBuffer, queue, b, CL_TRUE, 0, SIZE, back, 0, NULL, NULL),
            "clEnqueueReadBuffer");
  expect(memcmp(host, back, SIZE) == 0, "write, copy, read 4096 bytes");

  /* Fill the second quarter of b, read it and the first quarter back. */
  const uint32_t pattern = 0x5a5a5a5au;
  clu_check(CL_XFER(QUARTER, clEnqueueFillBuffer, queue, b, &pattern, sizeof pattern, QUARTER,
                    QUARTER, 0, NULL, NULL),
            "clEnqueueFillBuffer");
  finish();
  clu_check(CL_XFER(QUARTER, clEnqueueReadBuffer, queue, b, CL_TRUE, QUARTER, QUARTER, back, 0,
                    NULL, NULL),
            "clEnqueueReadBuffer");
  int ok = 1;
  for (int i = 0; i < QUARTER / 4; i++)
    ok &= back[i] == pattern;
  expect(ok, "fill 1024 bytes");
  clu_check(CL_XFER(QUARTER, clEnqueueReadBuffer, queue, b, CL_TRUE, 0, QUARTER, back, 0, NULL,
                    NULL),
            "clEnqueueReadBuffer");
  expect(memcmp(host, back, QUARTER) == 0, "bytes outside the fill unchanged");

  /* Map the first half of a for writing, then read it back. */
  uint32_t *mapped;
  CL_MAP(mapped, HALF, &err, clEnqueueMapBuffer, queue, a, CL_TRUE, CL_MAP_WRITE, 0, HALF, 0,
         NULL, NULL);
  clu_check(err, "clEnqueueMapBuffer");
  for (int i = 0; i < HALF / 4; i++)
    mapped[i] = (uint32_t)i * 7u;
  clu_check(CL_XFER(0, clEnqueueUnmapMemObject, queue, a, mapped, 0, NULL, NULL),
            "clEnqueueUnmapMemObject");
  finish();
  clu_check(CL_XFER(HALF, clEnqueueReadBuffer, queue, a, CL_TRUE, 0, HALF, back, 0, NULL, NULL),
            "clEnqueueReadBuffer");
  ok = 1;
  for (int i = 0; i < HALF / 4; i++)
    ok &= back[i] == (uint32_t)i * 7u;
  expect(ok, "map for writing 2048 bytes, unmap");

  /* Map the second half of b for reading. */
  CL_MAP(mapped, HALF, &err, clEnqueueMapBuffer, queue, b, CL_TRUE, CL_MAP_READ, HALF, HALF, 0,
         NULL, NULL);
  clu_check(err, "clEnqueueMapBuffer");
  ok = memcmp(mapped, host + HALF / 4, HALF) == 0;
  clu_check(CL_XFER(0, clEnqueueUnmapMemObject, queue, b, mapped, 0, NULL, NULL),
            "clEnqueueUnmapMemObject");
  finish();
  expect(ok, "map for reading 2048 bytes, unmap");

  /* Rects: zero r, write a 16 x 8 block at (8, 4), read the 32 x 16 corner back. */
  const uint8_t zero = 0;
  clu_check(CL_XFER(PITCH * ROWS, clEnqueueFillBuffer, queue, r, &zero, 1, 0, PITCH * ROWS, 0,
                    NULL, NULL),
            "clEnqueueFillBuffer");
  finish();
  uint8_t block[8][16];
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 16; x++)
      block[y][x] = (uint8_t)(1 + y * 16 + x);
  const size_t block_origin[3] = {8, 4, 0}, zero_origin[3] = {0, 0, 0};
  const size_t block_region[3] = {16, 8, 1}, corner_region[3] = {32, 16, 1};
  clu_check(CL_XFER(16 * 8, clEnqueueWriteBufferRect, queue, r, CL_TRUE, block_origin,
                    zero_origin, block_region, PITCH, 0, 16, 0, block, 0, NULL, NULL),
            "clEnqueueWriteBufferRect");
  uint8_t corner[16][32];
  clu_check(CL_XFER(32 * 16, clEnqueueReadBufferRect, queue, r, CL_TRUE, zero_origin, zero_origin,
                    corner_region, PITCH, 0, 32, 0, corner, 0, NULL, NULL),
            "clEnqueueReadBufferRect");
  ok = 1;
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 32; x++) {
      int inside = y >= 4 && y < 12 && x >= 8 && x < 24;
      ok &= corner[y][x] == (inside ? block[y - 4][x - 8] : 0);
    }
  expect(ok, "write rect 16x8, read rect 32x16");

  /* Copy the block from r to the start of b, packed, and read it. */
  clu_check(CL_XFER(16 * 8, clEnqueueCopyBufferRect, queue, r, b, block_origin, zero_origin,
                    block_region, PITCH, 0, 16, 0, 0, NULL, NULL),
            "clEnqueueCopyBufferRect");
  finish();
  uint8_t packed[8][16];
  clu_check(CL_XFER(sizeof packed, clEnqueueReadBuffer, queue, b, CL_TRUE, 0, sizeof packed,
                    packed, 0, NULL, NULL),
            "clEnqueueReadBuffer");
  expect(memcmp(packed, block, sizeof packed) == 0, "copy rect 16x8");

  CL(clReleaseMemObject, a);
  CL(clReleaseMemObject, b);
  CL(clReleaseMemObject, r);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  return clc_finish(0);
}
