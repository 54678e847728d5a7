/* Golden case "records": struct and union layouts a naive parser gets wrong. */
#ifndef RECORDS_H
#define RECORDS_H
#include <stdint.h>

/* Not matched by the spec's "rec_*": in the model only because a field inside an
 * unnamed struct uses it. */
typedef struct point3 {
  float x, y, z;
} point3_t;

/* A callback typedef used as a field type. */
typedef void (*rec_callback_t)(void *user_data, int status);

/* Bit-fields: several in a row, signed and unsigned, an unnamed padding bit-field,
 * and one that does not fit in the first unsigned int and starts a new one. */
typedef struct rec_flags_s {
  unsigned int ready : 1;
  unsigned int mode : 3;
  signed int delta : 4;
  unsigned int : 8;
  unsigned int level : 12;
  unsigned int wide : 6;
  uint8_t tail;
} rec_flags_t;

/* Anonymous struct and union members, a named field of an unnamed struct type, nested
 * two levels, and function pointers as fields. */
struct rec_event {
  int kind;
  union {
    int64_t as_int;
    double as_double;
    struct {
      uint16_t lo;
      uint16_t hi;
    };
  };
  struct {
    char tag[3];
    struct {
      short x, y;
    } point;
    point3_t origin;
  } where;
  rec_callback_t on_done;
  int (*on_error)(struct rec_event *event, const char *message);
};

/* Fixed-size arrays: one and several dimensions, of records and of pointers. */
typedef struct rec_matrix {
  float m[3][4];
  rec_flags_t flags[2];
  const char *names[4];
  uint8_t raw[2][2][3];
} rec_matrix_t;

/* A union whose largest member is an array. */
typedef union rec_value {
  uint32_t u32;
  char bytes[6];
  void *ptr;
} rec_value_t;

int rec_post(struct rec_event *event, const rec_matrix_t *matrix, rec_value_t value,
             rec_flags_t flags);
#endif
