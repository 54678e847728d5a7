/* Golden case "handles_and_typedefs": what is a handle, and typedefs of typedefs. */
#ifndef HANDLES_AND_TYPEDEFS_H
#define HANDLES_AND_TYPEDEFS_H
#include <stdint.h>

/* Opaque handles: pointers to structs the header never defines. */
typedef struct ht_context_s *ht_context_t;
typedef struct ht_queue_s *ht_queue_t;
/* A typedef of a handle is a handle too. */
typedef ht_queue_t ht_default_queue_t;

/* Integer handles, named in the spec's `handles`. */
typedef int ht_fd_t;
typedef uint32_t ht_device_id;
typedef uint64_t ht_stream_id;
/* A pointer to a complete struct is not a handle. */
typedef struct ht_point { int x, y; } *ht_point_ptr_t;

/* A chain of typedefs: each level must resolve to the same canonical type. */
typedef unsigned long long ht_u64_t;
typedef ht_u64_t ht_size_t;
typedef ht_size_t ht_offset_t;
typedef const ht_offset_t ht_const_offset_t;
/* Typedefs of arrays, of a struct typedef, and of a function type. */
typedef ht_offset_t ht_range_t[2];
typedef struct ht_point ht_point_t;
typedef ht_point_t ht_location_t;
typedef int ht_visit_fn(ht_context_t context, ht_location_t *where);

/* A callback whose unnamed params are handles: the typedef names must survive. */
typedef void (*ht_close_cb)(ht_fd_t, ht_device_id, ht_context_t);

/* A struct holding handles. */
typedef struct ht_binding {
  ht_context_t context;
  ht_default_queue_t queue;
  ht_fd_t fd;
  ht_device_id devices[4];
  ht_range_t range;
} ht_binding_t;

int ht_open(ht_fd_t fd, ht_context_t *out_context);
int ht_bind(ht_context_t context, ht_default_queue_t queue, ht_device_id device,
            ht_stream_id stream, ht_point_ptr_t point, ht_const_offset_t offset,
            ht_range_t range, ht_binding_t *binding);
int ht_walk(ht_context_t context, ht_visit_fn *visit);
int ht_close(ht_fd_t fd, ht_close_cb on_close);
#endif
