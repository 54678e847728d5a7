/* Golden case "roles_spec": roles the headers cannot say, given by the spec. */
#ifndef ROLES_SPEC_H
#define ROLES_SPEC_H
#include <stddef.h>
#include <stdint.h>

typedef struct rs_command {
  uint32_t opcode;
  uint64_t argument;
} rs_command_t;

typedef struct rs_submit_desc {
  const void *next;
  uint32_t count;
} rs_submit_desc_t;

int rs_write(int fd, void *data, size_t count);
int rs_submit(const rs_submit_desc_t *desc, const rs_command_t *commands);
int rs_query(
    int *pValue,            ///< [out] the value
    char *name_buf,         ///< [out] the name
    size_t name_len         ///< [in] size of name_buf
    );
int rs_get_size(int handle, size_t *out_size, size_t *max_size);
int rs_get_name(int handle, char **out_name);
int rs_read_pairs(uint32_t *pCount, int *pairs);
#endif
