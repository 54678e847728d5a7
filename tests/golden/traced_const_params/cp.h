/* Params declared const at the top level (`const xmlBufPtr buf`, `int *const p`): the
 * wrapper copies them into an args struct, whose members must stay assignable. */
#ifndef CP_H
#define CP_H
typedef struct cp_buf *cp_buf_ptr;
typedef enum cp_mode { CP_READ, CP_WRITE } cp_mode;
unsigned long cp_use(const cp_buf_ptr buf);
int cp_fill(int *const out, const int count, const cp_mode mode, const double scale);
#endif
