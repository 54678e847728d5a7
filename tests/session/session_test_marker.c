/* A library with one exported marker symbol, built twice: as the "interposer" the
 * launcher preloads and as the user's own LD_PRELOAD library. The test app looks the
 * marker up to prove that the library was loaded into it. */
#ifndef SESSION_TEST_MARKER
#error "SESSION_TEST_MARKER must name the marker symbol"
#endif

int SESSION_TEST_MARKER(void);

int SESSION_TEST_MARKER(void)
{
  return 1;
}
