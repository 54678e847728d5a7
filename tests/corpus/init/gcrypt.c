/* A libgcrypt client: hashes a text through a handle that gcry_md_open gives through its
 * out-param, and asks for an algorithm that does not exist (a gcry_error_t not 0). */
#include <gcrypt.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  gcry_check_version(NULL);
  gcry_md_hd_t md;
  const char text[] = "a text to hash";
  gcry_error_t err = gcry_md_open(&md, GCRY_MD_SHA256, 0);
  if (err)
    return 1;
  gcry_md_write(md, text, strlen(text));
  unsigned char *digest = gcry_md_read(md, GCRY_MD_SHA256);
  printf("sha256 starts %02x%02x\n", digest[0], digest[1]);
  gcry_md_close(md);
  gcry_md_hd_t none;
  gcry_error_t bad = gcry_md_open(&none, 12345, 0);
  printf("algorithm 12345: %s\n", gcry_strerror(bad));
  return 0;
}
