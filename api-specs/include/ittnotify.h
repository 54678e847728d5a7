/*
 * ittnotify.h - declarations of the public ITT (Instrumentation and Tracing
 * Technology) API.
 *
 * This is the project's own declaration of the public ITT API, written from
 * its public documentation (the ITT API reference: domains, string handles,
 * tasks, frames, counters, ...). It exists for apigen's itt model and for the
 * ITT backend. It is NOT Intel's ittnotify.h: every function is declared as a
 * plain C prototype (no function-pointer macros), using the names Linux uses
 * (no "A"/"W" suffixes except where the API itself has only "A" forms).
 *
 * Parameter directions are given as \param[in] / \param[out] / \param[in,out].
 */
#ifndef TRACE_API_SPECS_ITTNOTIFY_H
#define TRACE_API_SPECS_ITTNOTIFY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Core types ---------------------------------------------------------- */
/** A domain: tags trace data of one module or library. Set flags to 0 to
 *  disable all instrumentation that uses this domain. */
typedef struct ___itt_domain {
  volatile int flags;          /**< zero if disabled, non-zero if enabled */
  const char *nameA;           /**< domain name (narrow characters) */
  void *nameW;                 /**< wide-character name (Windows only) */
  int extra1;                  /**< reserved to the runtime */
  void *extra2;                /**< reserved to the runtime */
  struct ___itt_domain *next;  /**< next domain, runtime-owned list */
} __itt_domain;

/** A string handle: an interned name used to label API objects. */
typedef struct ___itt_string_handle {
  const char *strA;                   /**< the string (narrow characters) */
  void *strW;                         /**< wide-character string (Windows only) */
  int extra1;                         /**< reserved to the runtime */
  void *extra2;                       /**< reserved to the runtime */
  struct ___itt_string_handle *next;  /**< next handle, runtime-owned list */
} __itt_string_handle;

/** An instance identifier (of a task, region, marker, frame, ...). */
typedef struct ___itt_id { unsigned long long d1, d2, d3; } __itt_id;

/** The null instance identifier (all parts zero). */
#ifdef __cplusplus
#define __itt_null (__itt_id{0ULL, 0ULL, 0ULL})
#else
#define __itt_null ((__itt_id){0ULL, 0ULL, 0ULL})
#endif

/** A timestamp, as returned by __itt_get_timestamp(). */
typedef unsigned long long __itt_timestamp;
/** A timestamp value meaning "no timestamp". */
#define __itt_timestamp_none ((__itt_timestamp)-1LL)

/** Scope of a marker or a metadata item. */
typedef enum {
  __itt_scope_unknown = 0, __itt_scope_global = 1, __itt_scope_track_group = 2,
  __itt_scope_track = 3, __itt_scope_task = 4, __itt_scope_marker = 5
} __itt_scope;

/** Type of numeric metadata, counter values and histogram axes
 *  (u/s = unsigned/signed integer of 64, 32 or 16 bits). */
typedef enum {
  __itt_metadata_unknown = 0,
  __itt_metadata_u64 = 1, __itt_metadata_s64 = 2, __itt_metadata_u32 = 3,
  __itt_metadata_s32 = 4, __itt_metadata_u16 = 5, __itt_metadata_s16 = 6,
  __itt_metadata_float = 7, __itt_metadata_double = 8
} __itt_metadata_type;

/** Logical relation between two instances: head RELATION tail. */
typedef enum {
  __itt_relation_is_unknown = 0,         __itt_relation_is_dependent_on = 1,
  __itt_relation_is_sibling_of = 2,      __itt_relation_is_parent_of = 3,
  __itt_relation_is_continuation_of = 4, __itt_relation_is_child_of = 5,
  __itt_relation_is_continued_by = 6,    __itt_relation_is_predecessor_to = 7
} __itt_relation;

/** Parts of the program that scoped collection control applies to. */
typedef enum {
  __itt_collection_scope_host = 1 << 0,     /**< host (CPU) code */
  __itt_collection_scope_offload = 1 << 1,  /**< offloaded (device) code */
  __itt_collection_scope_all = 0x7FFFFFFF   /**< everything */
} __itt_collection_scope;

/** Clock information of a clock domain. */
typedef struct ___itt_clock_info {
  unsigned long long clock_freq;  /**< clock frequency, ticks per second */
  unsigned long long clock_base;  /**< clock base timestamp, in ticks */
} __itt_clock_info;

/** Callback that fills in a clock domain's clock information. */
typedef void (*__itt_get_clock_info_fn)(__itt_clock_info *clock_info, void *data);

/** A clock domain: a time base other than the CPU's (e.g. a GPU's). */
typedef struct ___itt_clock_domain {
  __itt_clock_info info;             /**< most recent clock information */
  __itt_get_clock_info_fn fn;        /**< callback that refreshes info */
  void *fn_data;                     /**< argument passed to fn */
  int extra1;                        /**< reserved, must be zero */
  void *extra2;                      /**< reserved, must be zero */
  struct ___itt_clock_domain *next;  /**< next clock domain, runtime-owned */
} __itt_clock_domain;

/** Handle of a counter (opaque). */
typedef struct ___itt_counter *__itt_counter;

/** Kind of a context metadata item bound to a counter. "A" kinds carry a
 *  char string, "W" kinds a wide string (Windows only), the rest point to
 *  an unsigned 64-bit integer (the *_flag kinds hold 0 or 1). */
typedef enum {
  __itt_context_unknown = 0,
  __itt_context_nameA = 1,     __itt_context_nameW = 2,     /**< metric name */
  __itt_context_deviceA = 3,   __itt_context_deviceW = 4,   /**< sub-domain */
  __itt_context_unitsA = 5,    __itt_context_unitsW = 6,    /**< unit */
  __itt_context_pci_addrA = 7, __itt_context_pci_addrW = 8, /**< PCI address */
  __itt_context_tid = 9,                /**< thread id */
  __itt_context_max_val = 10,           /**< maximum value */
  __itt_context_bandwidth_flag = 11,    __itt_context_latency_flag = 12,
  __itt_context_occupancy_flag = 13,    __itt_context_on_thread_flag = 14,
  __itt_context_is_abs_val_flag = 15,   __itt_context_cpu_instructions_flag = 16,
  __itt_context_cpu_cycles_flag = 17
} __itt_context_type;

/* The documented suffix-less context kinds are the char-string ones. */
#define __itt_context_name __itt_context_nameA
#define __itt_context_device __itt_context_deviceA
#define __itt_context_units __itt_context_unitsA
#define __itt_context_pci_addr __itt_context_pci_addrA

/** One context metadata item. */
typedef struct ___itt_context_metadata {
  __itt_context_type type;  /**< kind of the value */
  void *value;              /**< pointer to the value itself */
} __itt_context_metadata;

/** Type of a track group. */
typedef enum { __itt_track_group_type_normal = 0 } __itt_track_group_type;
/** Type of a track. */
typedef enum { __itt_track_type_normal = 0 } __itt_track_type;

struct ___itt_track;

/** A group of tracks. */
typedef struct ___itt_track_group {
  __itt_string_handle *name;        /**< name of the group */
  struct ___itt_track *track;       /**< list of child tracks */
  __itt_track_group_type tgtype;    /**< type of the group */
  int extra1;                       /**< reserved, must be zero */
  void *extra2;                     /**< reserved, must be zero */
  struct ___itt_track_group *next;  /**< next group, runtime-owned */
} __itt_track_group;

/** A track: a timeline that tasks and markers can be placed on. */
typedef struct ___itt_track {
  __itt_string_handle *name;  /**< name of the track */
  __itt_track_group *group;   /**< parent group */
  __itt_track_type ttype;     /**< type of the track */
  int extra1;                 /**< reserved, must be zero */
  void *extra2;               /**< reserved, must be zero */
  struct ___itt_track *next;  /**< next track, runtime-owned */
} __itt_track;

/** A histogram (see __itt_histogram_create()). */
typedef struct ___itt_histogram {
  const __itt_domain *domain;     /**< domain of the histogram */
  const char *nameA;              /**< name of the histogram */
  void *nameW;                    /**< wide-character name (Windows only) */
  __itt_metadata_type x_type;     /**< type of the X axis data */
  __itt_metadata_type y_type;     /**< type of the Y axis data */
  int extra1;                     /**< reserved to the runtime */
  void *extra2;                   /**< reserved to the runtime */
  struct ___itt_histogram *next;  /**< next histogram, runtime-owned */
} __itt_histogram;

/** Handle of a legacy frame object (opaque). */
typedef struct ___itt_frame *__itt_frame;
/** Handle of a user event type. */
typedef int __itt_event;

/** Handle of an annotated heap function. */
typedef void *__itt_heap_function;
/** Masks for __itt_heap_reset_detection() and __itt_heap_record(). */
#define __itt_heap_leaks 0x00000001
#define __itt_heap_growth 0x00000002

/** Sync object attributes for __itt_sync_create(). */
#define __itt_attr_barrier 1
#define __itt_attr_mutex 2

/** Error classes for the suppression API. */
#define __itt_suppress_all_errors 0x7fffffff
#define __itt_suppress_threading_errors 0x000000ff
#define __itt_suppress_memory_errors 0x0000ff00
/** Whether a memory range is marked or unmarked for suppression. */
typedef enum __itt_suppress_mode {
  __itt_unsuppress_range = 0, __itt_suppress_range = 1
} __itt_suppress_mode_t;

/** Advisor model handles: lexical site/task and their dynamic instances. */
typedef void *__itt_model_site;
typedef void *__itt_model_site_instance;
typedef void *__itt_model_task;
typedef void *__itt_model_task_instance;
/** What __itt_model_disable_push() disables. */
typedef enum {
  __itt_model_disable_observation = 0, __itt_model_disable_collection = 1
} __itt_model_disable;

/** Binary format of a module. */
typedef enum {
  __itt_module_type_unknown = 0, __itt_module_type_elf = 1, __itt_module_type_coff = 2
} __itt_module_type;
/** Kind of a module section. */
typedef enum {
  itt_section_type_unknown = 0, itt_section_type_bss = 1,
  itt_section_type_data = 2, itt_section_type_text = 3
} __itt_section_type;

/** One loaded (relocated) section of a module. */
typedef struct ___itt_section_info {
  const char *name;         /**< section name, UTF-8 */
  __itt_section_type type;  /**< content of the section */
  size_t flags;             /**< attribute bit flags */
  void *start_addr;         /**< load (relocated) start address */
  size_t size;              /**< section size */
  size_t file_offset;       /**< section offset in the file */
} __itt_section_info;

/** A module together with its loaded sections. */
typedef struct ___itt_module_object {
  unsigned int version;               /**< version of this structure's layout */
  __itt_id module_id;                 /**< identifier, same for all sections */
  __itt_module_type module_type;      /**< binary format */
  const char *module_name;            /**< name, or path when no buffer; UTF-8 */
  void *module_buffer;                /**< module content, or NULL */
  size_t module_size;                 /**< size of module_buffer */
  __itt_section_info *section_array;  /**< the sections */
  size_t section_number;              /**< number of entries in section_array */
} __itt_module_object;

/* ---- Collection control -------------------------------------------------- */
/** Pause data collection for the whole process. */
void __itt_pause(void);
/** Resume data collection for the whole process. */
void __itt_resume(void);
/** Detach all collectors; the application keeps running uncollected. */
void __itt_detach(void);
/** Pause data collection in the given scope.
 *  \param[in] scope parts of the program to pause */
void __itt_pause_scoped(__itt_collection_scope scope);
/** Resume data collection in the given scope.
 *  \param[in] scope parts of the program to resume */
void __itt_resume_scoped(__itt_collection_scope scope);
/** Allow a collector to attach to the running process later. */
void __itt_enable_attach(void);

/* ---- Thread naming ------------------------------------------------------- */
/** Name the calling thread; the last name set wins.
 *  \param[in] name the thread name */
void __itt_thread_set_name(const char *name);
/** Exclude the calling thread from analysis. */
void __itt_thread_ignore(void);

/* ---- Error suppression (correctness analysis) ---------------------------- */
/** Start suppressing the given error classes on the calling thread.
 *  \param[in] mask error classes (__itt_suppress_*_errors) */
void __itt_suppress_push(unsigned int mask);
/** Undo the most recent __itt_suppress_push() on the calling thread. */
void __itt_suppress_pop(void);
/** Mark a memory range for (un)suppression of the given error classes.
 *  \param[in] mode    suppress or unsuppress the range
 *  \param[in] mask    error classes
 *  \param[in] address start of the range
 *  \param[in] size    length of the range in bytes */
void __itt_suppress_mark_range(__itt_suppress_mode_t mode, unsigned int mask,
                               void *address, size_t size);
/** Remove a range previously marked with __itt_suppress_mark_range().
 *  \param[in] mode    mode the range was marked with
 *  \param[in] mask    error classes
 *  \param[in] address start of the range
 *  \param[in] size    length of the range in bytes */
void __itt_suppress_clear_range(__itt_suppress_mode_t mode, unsigned int mask,
                                void *address, size_t size);

/* ---- User-defined synchronization objects -------------------------------- */
/** Register the creation of a sync object.
 *  \param[in] addr      address identifying the object
 *  \param[in] objtype   type of the object, e.g. "mutex"
 *  \param[in] objname   name of the object
 *  \param[in] attribute __itt_attr_barrier or __itt_attr_mutex */
void __itt_sync_create(void *addr, const char *objtype, const char *objname, int attribute);
/** Give a sync object a (new) name.
 *  \param[in] addr address identifying the object
 *  \param[in] name the new name */
void __itt_sync_rename(void *addr, const char *name);
/** Register the destruction of a sync object.
 *  \param[in] addr address identifying the object */
void __itt_sync_destroy(void *addr);
/** About to wait for (spin on) a sync object.
 *  \param[in] addr address identifying the object */
void __itt_sync_prepare(void *addr);
/** Stopped waiting without acquiring the sync object.
 *  \param[in] addr address identifying the object */
void __itt_sync_cancel(void *addr);
/** Acquired the sync object (the wait succeeded).
 *  \param[in] addr address identifying the object */
void __itt_sync_acquired(void *addr);
/** About to release the sync object.
 *  \param[in] addr address identifying the object */
void __itt_sync_releasing(void *addr);

/* ---- Advisor modeling (site/task/lock annotations) ----------------------- */
/** Enter a parallel site.
 *  \param[in,out] site     lexical site handle (static storage)
 *  \param[out]    instance dynamic site instance
 *  \param[in]     name     site name */
void __itt_model_site_begin(__itt_model_site *site,
                            __itt_model_site_instance *instance, const char *name);
/** Enter a parallel site identified by name only.
 *  \param[in] name site name */
void __itt_model_site_beginA(const char *name);
/** Enter a parallel site identified by a counted name.
 *  \param[in] name        site name (need not be terminated)
 *  \param[in] siteNameLen length of name */
void __itt_model_site_beginAL(const char *name, size_t siteNameLen);
/** Leave a parallel site.
 *  \param[in] site     lexical site handle
 *  \param[in] instance dynamic site instance */
void __itt_model_site_end(__itt_model_site *site, __itt_model_site_instance *instance);
/** Leave the innermost parallel site. */
void __itt_model_site_end_2(void);
/** Begin a potential task inside the current site.
 *  \param[in,out] task     lexical task handle (static storage)
 *  \param[out]    instance dynamic task instance
 *  \param[in]     name     task name */
void __itt_model_task_begin(__itt_model_task *task,
                            __itt_model_task_instance *instance, const char *name);
/** Begin a potential task identified by name only.
 *  \param[in] name task name */
void __itt_model_task_beginA(const char *name);
/** Begin a potential task identified by a counted name.
 *  \param[in] name        task name (need not be terminated)
 *  \param[in] taskNameLen length of name */
void __itt_model_task_beginAL(const char *name, size_t taskNameLen);
/** Mark the start of a loop-iteration task.
 *  \param[in] name task name */
void __itt_model_iteration_taskA(const char *name);
/** Mark the start of a loop-iteration task with a counted name.
 *  \param[in] name        task name (need not be terminated)
 *  \param[in] taskNameLen length of name */
void __itt_model_iteration_taskAL(const char *name, size_t taskNameLen);
/** End a potential task.
 *  \param[in] task     lexical task handle
 *  \param[in] instance dynamic task instance */
void __itt_model_task_end(__itt_model_task *task, __itt_model_task_instance *instance);
/** End the innermost potential task. */
void __itt_model_task_end_2(void);
/** Acquire a modeled lock.
 *  \param[in] lock address identifying the lock */
void __itt_model_lock_acquire(void *lock);
/** Acquire a modeled lock (second form).
 *  \param[in] lock address identifying the lock */
void __itt_model_lock_acquire_2(void *lock);
/** Release a modeled lock.
 *  \param[in] lock address identifying the lock */
void __itt_model_lock_release(void *lock);
/** Release a modeled lock (second form).
 *  \param[in] lock address identifying the lock */
void __itt_model_lock_release_2(void *lock);
/** Record a user allocation.
 *  \param[in] addr start of the allocated block
 *  \param[in] size size of the block in bytes */
void __itt_model_record_allocation(void *addr, size_t size);
/** Record a user deallocation.
 *  \param[in] addr start of the freed block */
void __itt_model_record_deallocation(void *addr);
/** Declare a memory range as an induction variable.
 *  \param[in] addr start of the range
 *  \param[in] size size of the range in bytes */
void __itt_model_induction_uses(void *addr, size_t size);
/** Declare a memory range as a reduction variable.
 *  \param[in] addr start of the range
 *  \param[in] size size of the range in bytes */
void __itt_model_reduction_uses(void *addr, size_t size);
/** Ask for uses of a memory range to be observed.
 *  \param[in] addr start of the range
 *  \param[in] size size of the range in bytes */
void __itt_model_observe_uses(void *addr, size_t size);
/** Clear the special handling of a memory range.
 *  \param[in] addr start of the range */
void __itt_model_clear_uses(void *addr);
/** Disable observation or collection until the matching pop.
 *  \param[in] x what to disable */
void __itt_model_disable_push(__itt_model_disable x);
/** Undo the most recent __itt_model_disable_push(). */
void __itt_model_disable_pop(void);
/** Declare that the next tasks are aggregated.
 *  \param[in] x number of aggregated tasks */
void __itt_model_aggregate_task(size_t x);

/* ---- Heap (memory allocation) hooks -------------------------------------- */
/** Create a handle for a user allocation/free/reallocation function.
 *  \param[in] name   name of the annotated function
 *  \param[in] domain name shared by a matching set of functions */
__itt_heap_function __itt_heap_function_create(const char *name, const char *domain);
/** An allocation is about to start.
 *  \param[in] h           handle of the allocation function
 *  \param[in] size        requested size in bytes
 *  \param[in] initialized non-zero if the memory is initialized */
void __itt_heap_allocate_begin(__itt_heap_function h, size_t size, int initialized);
/** An allocation has finished.
 *  \param[in] h           handle of the allocation function
 *  \param[in] addr        where the address of the new block is stored
 *  \param[in] size        requested size in bytes
 *  \param[in] initialized non-zero if the memory is initialized */
void __itt_heap_allocate_end(__itt_heap_function h, void **addr, size_t size, int initialized);
/** A free is about to start.
 *  \param[in] h    handle of the free function
 *  \param[in] addr block being freed */
void __itt_heap_free_begin(__itt_heap_function h, void *addr);
/** A free has finished.
 *  \param[in] h    handle of the free function
 *  \param[in] addr block that was freed */
void __itt_heap_free_end(__itt_heap_function h, void *addr);
/** A reallocation is about to start.
 *  \param[in] h           handle of the reallocation function
 *  \param[in] addr        block being reallocated
 *  \param[in] new_size    requested new size in bytes
 *  \param[in] initialized non-zero if the memory is initialized */
void __itt_heap_reallocate_begin(__itt_heap_function h, void *addr, size_t new_size,
                                 int initialized);
/** A reallocation has finished (call it even when it failed).
 *  \param[in] h           handle of the reallocation function
 *  \param[in] addr        block that was reallocated
 *  \param[in] new_addr    where the address of the new block is stored
 *  \param[in] new_size    requested new size in bytes
 *  \param[in] initialized non-zero if the memory is initialized */
void __itt_heap_reallocate_end(__itt_heap_function h, void *addr, void **new_addr,
                               size_t new_size, int initialized);
/** The calling thread starts accessing heap internals. */
void __itt_heap_internal_access_begin(void);
/** The calling thread stops accessing heap internals. */
void __itt_heap_internal_access_end(void);
/** Start recording memory growth. */
void __itt_heap_record_memory_growth_begin(void);
/** Stop recording memory growth. */
void __itt_heap_record_memory_growth_end(void);
/** Reset the selected heap detections.
 *  \param[in] reset_mask __itt_heap_leaks and/or __itt_heap_growth */
void __itt_heap_reset_detection(unsigned int reset_mask);
/** Report the selected heap detections.
 *  \param[in] record_mask __itt_heap_leaks and/or __itt_heap_growth */
void __itt_heap_record(unsigned int record_mask);

/* ---- Domains, string handles, timestamps, ids ---------------------------- */
/** Create (or find) a domain; domains are never destroyed. Thread-safe.
 *  \param[in] name domain name, URI style, e.g. "com.example.app" */
__itt_domain *__itt_domain_create(const char *name);
/** Create (or find) the string handle of a string. Thread-safe.
 *  \param[in] name the string */
__itt_string_handle *__itt_string_handle_create(const char *name);
/** Return the current timestamp of the collector's clock. */
__itt_timestamp __itt_get_timestamp(void);
/** Create an instance identifier in a domain.
 *  \param[in] domain domain of the id
 *  \param[in] id     the id to create */
void __itt_id_create(const __itt_domain *domain, __itt_id id);
/** Destroy an instance identifier.
 *  \param[in] domain domain of the id
 *  \param[in] id     the id to destroy */
void __itt_id_destroy(const __itt_domain *domain, __itt_id id);

/* ---- Regions and frames -------------------------------------------------- */
/** Begin a region instance.
 *  \param[in] domain   domain of the region
 *  \param[in] id       instance id, or __itt_null
 *  \param[in] parentid parent instance id, or __itt_null
 *  \param[in] name     region name */
void __itt_region_begin(const __itt_domain *domain, __itt_id id, __itt_id parentid,
                        __itt_string_handle *name);
/** End a region instance.
 *  \param[in] domain domain of the region
 *  \param[in] id     instance id given to __itt_region_begin() */
void __itt_region_end(const __itt_domain *domain, __itt_id id);
/** Begin a frame instance.
 *  \param[in] domain domain of the frame
 *  \param[in] id     instance id, or NULL for the current frame */
void __itt_frame_begin_v3(const __itt_domain *domain, __itt_id *id);
/** End a frame instance.
 *  \param[in] domain domain of the frame
 *  \param[in] id     instance id, or NULL for the current frame */
void __itt_frame_end_v3(const __itt_domain *domain, __itt_id *id);
/** Submit a whole frame instance with explicit timestamps.
 *  \param[in] domain domain of the frame
 *  \param[in] id     instance id, or NULL
 *  \param[in] begin  start timestamp
 *  \param[in] end    end timestamp, or __itt_timestamp_none for "now" */
void __itt_frame_submit_v3(const __itt_domain *domain, __itt_id *id,
                           __itt_timestamp begin, __itt_timestamp end);
/** Legacy: create a frame object.
 *  \param[in] domain name of the frame domain */
__itt_frame __itt_frame_create(const char *domain);
/** Legacy: begin a frame of a frame object.
 *  \param[in] frame the frame object */
void __itt_frame_begin(__itt_frame frame);
/** Legacy: end a frame of a frame object.
 *  \param[in] frame the frame object */
void __itt_frame_end(__itt_frame frame);

/* ---- Tasks --------------------------------------------------------------- */
/** Begin a task instance on the calling thread.
 *  \param[in] domain   domain of the task
 *  \param[in] taskid   instance id, or __itt_null
 *  \param[in] parentid parent instance id, or __itt_null
 *  \param[in] name     task name */
void __itt_task_begin(const __itt_domain *domain, __itt_id taskid, __itt_id parentid,
                      __itt_string_handle *name);
/** Begin a task instance named by a function address.
 *  \param[in] domain   domain of the task
 *  \param[in] taskid   instance id, or __itt_null
 *  \param[in] parentid parent instance id, or __itt_null
 *  \param[in] fn       address of the function the task runs */
void __itt_task_begin_fn(const __itt_domain *domain, __itt_id taskid, __itt_id parentid, void *fn);
/** End the most recently begun task on the calling thread.
 *  \param[in] domain domain of the task */
void __itt_task_end(const __itt_domain *domain);
/** Begin an overlapped task instance.
 *  \param[in] domain   domain of the task
 *  \param[in] taskid   instance id (required)
 *  \param[in] parentid parent instance id, or __itt_null
 *  \param[in] name     task name */
void __itt_task_begin_overlapped(const __itt_domain *domain, __itt_id taskid,
                                 __itt_id parentid, __itt_string_handle *name);
/** End an overlapped task instance.
 *  \param[in] domain domain of the task
 *  \param[in] taskid instance id given at begin */
void __itt_task_end_overlapped(const __itt_domain *domain, __itt_id taskid);

/* ---- Markers, metadata, relations ---------------------------------------- */
/** Place an instant marker.
 *  \param[in] domain domain of the marker
 *  \param[in] id     instance id, or __itt_null
 *  \param[in] name   marker name
 *  \param[in] scope  scope of the marker (global, track, task, ...) */
void __itt_marker(const __itt_domain *domain, __itt_id id, __itt_string_handle *name,
                  __itt_scope scope);
/** Attach numeric metadata to an instance.
 *  \param[in] domain domain of the metadata
 *  \param[in] id     instance id, or __itt_null for the current task
 *  \param[in] key    metadata name
 *  \param[in] type   type of the values
 *  \param[in] count  number of values
 *  \param[in] data   the values */
void __itt_metadata_add(const __itt_domain *domain, __itt_id id, __itt_string_handle *key,
                        __itt_metadata_type type, size_t count, void *data);
/** Attach string metadata to an instance.
 *  \param[in] domain domain of the metadata
 *  \param[in] id     instance id, or __itt_null for the current task
 *  \param[in] key    metadata name
 *  \param[in] data   the string
 *  \param[in] length number of characters in data, or -1 (0 in older versions) when
 *                    unknown (data then ends in NUL) */
void __itt_metadata_str_add(const __itt_domain *domain, __itt_id id,
                            __itt_string_handle *key, const char *data, size_t length);
/** Attach numeric metadata to a scope.
 *  \param[in] domain domain of the metadata
 *  \param[in] scope  scope the metadata belongs to
 *  \param[in] key    metadata name
 *  \param[in] type   type of the values
 *  \param[in] count  number of values
 *  \param[in] data   the values */
void __itt_metadata_add_with_scope(const __itt_domain *domain, __itt_scope scope,
                                   __itt_string_handle *key, __itt_metadata_type type,
                                   size_t count, void *data);
/** Attach string metadata to a scope.
 *  \param[in] domain domain of the metadata
 *  \param[in] scope  scope the metadata belongs to
 *  \param[in] key    metadata name
 *  \param[in] data   the string
 *  \param[in] length number of characters in data, or -1 (0 in older versions) when
 *                    unknown (data then ends in NUL) */
void __itt_metadata_str_add_with_scope(const __itt_domain *domain, __itt_scope scope,
                                       __itt_string_handle *key, const char *data,
                                       size_t length);
/** Attach printf-style formatted metadata to the current task.
 *  \param[in] domain        domain of the metadata
 *  \param[in] format_handle string handle holding the format string */
void __itt_formatted_metadata_add(const __itt_domain *domain,
                                  __itt_string_handle *format_handle, ...);
/** Attach printf-style formatted metadata to an overlapped task.
 *  \param[in] domain        domain of the metadata
 *  \param[in] taskid        id of the overlapped task
 *  \param[in] format_handle string handle holding the format string */
void __itt_formatted_metadata_add_overlapped(const __itt_domain *domain, __itt_id taskid,
                                             __itt_string_handle *format_handle, ...);
/** Relate the current task instance (head) to another instance.
 *  \param[in] domain   domain of the relation
 *  \param[in] relation the relation
 *  \param[in] tail     the other instance */
void __itt_relation_add_to_current(const __itt_domain *domain, __itt_relation relation,
                                   __itt_id tail);
/** Relate two instances: head RELATION tail.
 *  \param[in] domain   domain of the relation
 *  \param[in] head     first instance
 *  \param[in] relation the relation
 *  \param[in] tail     second instance */
void __itt_relation_add(const __itt_domain *domain, __itt_id head, __itt_relation relation,
                        __itt_id tail);

/* ---- Clock domains and explicit-timestamp ("_ex") variants --------------- */
/** Create a clock domain.
 *  \param[in] fn      callback that fills in the clock information
 *  \param[in] fn_data argument passed to fn; may be NULL */
__itt_clock_domain *__itt_clock_domain_create(__itt_get_clock_info_fn fn, void *fn_data);
/** Recalculate the base timestamps and frequencies of all clock domains. */
void __itt_clock_domain_reset(void);
/** Create an instance identifier at a given time.
 *  \param[in] domain       domain of the id
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] id           the id to create */
void __itt_id_create_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                        unsigned long long timestamp, __itt_id id);
/** Destroy an instance identifier at a given time.
 *  \param[in] domain       domain of the id
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] id           the id to destroy */
void __itt_id_destroy_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                         unsigned long long timestamp, __itt_id id);
/** Begin a task instance at a given time.
 *  \param[in] domain       domain of the task
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] taskid       instance id, or __itt_null
 *  \param[in] parentid     parent instance id, or __itt_null
 *  \param[in] name         task name */
void __itt_task_begin_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                         unsigned long long timestamp, __itt_id taskid, __itt_id parentid,
                         __itt_string_handle *name);
/** Begin a task instance named by a function address, at a given time.
 *  \param[in] domain       domain of the task
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] taskid       instance id, or __itt_null
 *  \param[in] parentid     parent instance id, or __itt_null
 *  \param[in] fn           address of the function the task runs */
void __itt_task_begin_fn_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                            unsigned long long timestamp, __itt_id taskid,
                            __itt_id parentid, void *fn);
/** End the most recent task at a given time.
 *  \param[in] domain       domain of the task
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp */
void __itt_task_end_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                       unsigned long long timestamp);
/** Begin an overlapped task instance at a given time.
 *  \param[in] domain       domain of the task
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] taskid       instance id (required)
 *  \param[in] parentid     parent instance id, or __itt_null
 *  \param[in] name         task name */
void __itt_task_begin_overlapped_ex(const __itt_domain *domain,
                                    __itt_clock_domain *clock_domain,
                                    unsigned long long timestamp, __itt_id taskid,
                                    __itt_id parentid, __itt_string_handle *name);
/** End an overlapped task instance at a given time.
 *  \param[in] domain       domain of the task
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] taskid       instance id given at begin */
void __itt_task_end_overlapped_ex(const __itt_domain *domain,
                                  __itt_clock_domain *clock_domain,
                                  unsigned long long timestamp, __itt_id taskid);
/** Place an instant marker at a given time.
 *  \param[in] domain       domain of the marker
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] id           instance id, or __itt_null
 *  \param[in] name         marker name
 *  \param[in] scope        scope of the marker */
void __itt_marker_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                     unsigned long long timestamp, __itt_id id, __itt_string_handle *name,
                     __itt_scope scope);
/** Relate the current task instance to another instance, at a given time.
 *  \param[in] domain       domain of the relation
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] relation     the relation
 *  \param[in] tail         the other instance */
void __itt_relation_add_to_current_ex(const __itt_domain *domain,
                                      __itt_clock_domain *clock_domain,
                                      unsigned long long timestamp,
                                      __itt_relation relation, __itt_id tail);
/** Relate two instances at a given time.
 *  \param[in] domain       domain of the relation
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] head         first instance
 *  \param[in] relation     the relation
 *  \param[in] tail         second instance */
void __itt_relation_add_ex(const __itt_domain *domain, __itt_clock_domain *clock_domain,
                           unsigned long long timestamp, __itt_id head,
                           __itt_relation relation, __itt_id tail);

/* ---- Counters ------------------------------------------------------------ */
/** Create a uint64 counter.
 *  \param[in] name   counter name
 *  \param[in] domain domain name */
__itt_counter __itt_counter_create(const char *name, const char *domain);
/** Create a counter of a given value type.
 *  \param[in] name   counter name
 *  \param[in] domain domain name
 *  \param[in] type   type of the counter values */
__itt_counter __itt_counter_create_typed(const char *name, const char *domain,
                                         __itt_metadata_type type);
/** Create a counter in a domain object.
 *  \param[in] domain domain of the counter
 *  \param[in] name   counter name
 *  \param[in] type   type of the counter values */
__itt_counter __itt_counter_create_v3(const __itt_domain *domain, const char *name,
                                      __itt_metadata_type type);
/** Increment a uint64 counter by one.
 *  \param[in] id the counter */
void __itt_counter_inc(__itt_counter id);
/** Increment a uint64 counter by a value.
 *  \param[in] id    the counter
 *  \param[in] value the increment */
void __itt_counter_inc_delta(__itt_counter id, unsigned long long value);
/** Decrement a uint64 counter by one.
 *  \param[in] id the counter */
void __itt_counter_dec(__itt_counter id);
/** Decrement a uint64 counter by a value.
 *  \param[in] id    the counter
 *  \param[in] value the decrement */
void __itt_counter_dec_delta(__itt_counter id, unsigned long long value);
/** Increment the counter with the given name by one.
 *  \param[in] domain domain controlling the call
 *  \param[in] name   counter name */
void __itt_counter_inc_v3(const __itt_domain *domain, __itt_string_handle *name);
/** Increment the counter with the given name by a value.
 *  \param[in] domain domain controlling the call
 *  \param[in] name   counter name
 *  \param[in] delta  the increment */
void __itt_counter_inc_delta_v3(const __itt_domain *domain, __itt_string_handle *name,
                                unsigned long long delta);
/** Decrement the counter with the given name by one.
 *  \param[in] domain domain controlling the call
 *  \param[in] name   counter name */
void __itt_counter_dec_v3(const __itt_domain *domain, __itt_string_handle *name);
/** Decrement the counter with the given name by a value.
 *  \param[in] domain domain controlling the call
 *  \param[in] name   counter name
 *  \param[in] delta  the decrement */
void __itt_counter_dec_delta_v3(const __itt_domain *domain, __itt_string_handle *name,
                                unsigned long long delta);
/** Set a counter's value.
 *  \param[in] id        the counter
 *  \param[in] value_ptr pointer to the value, of the counter's type */
void __itt_counter_set_value(__itt_counter id, void *value_ptr);
/** Set a counter's value at a given time.
 *  \param[in] id           the counter
 *  \param[in] clock_domain clock domain of timestamp
 *  \param[in] timestamp    user timestamp
 *  \param[in] value_ptr    pointer to the value, of the counter's type */
void __itt_counter_set_value_ex(__itt_counter id, __itt_clock_domain *clock_domain,
                                unsigned long long timestamp, void *value_ptr);
/** Set the value of a counter made by __itt_counter_create_v3().
 *  \param[in] counter   the counter
 *  \param[in] value_ptr pointer to the value, of the counter's type */
void __itt_counter_set_value_v3(__itt_counter counter, void *value_ptr);
/** Destroy a counter.
 *  \param[in] id the counter */
void __itt_counter_destroy(__itt_counter id);
/** Attach context metadata to a counter.
 *  \param[in] counter  the counter
 *  \param[in] length   number of elements in metadata
 *  \param[in] metadata array of context metadata items */
void __itt_bind_context_metadata_to_counter(__itt_counter counter, size_t length,
                                            __itt_context_metadata *metadata);

/* ---- Tracks -------------------------------------------------------------- */
/** Create (or find) a track group.
 *  \param[in] name             group name
 *  \param[in] track_group_type type of the group */
__itt_track_group *__itt_track_group_create(__itt_string_handle *name,
                                            __itt_track_group_type track_group_type);
/** Create (or find) a track in a group.
 *  \param[in] track_group parent group, or NULL
 *  \param[in] name        track name
 *  \param[in] track_type  type of the track */
__itt_track *__itt_track_create(__itt_track_group *track_group, __itt_string_handle *name,
                                __itt_track_type track_type);
/** Direct the calling thread's following events to a track.
 *  \param[in] track the track, or NULL for the thread's own track */
void __itt_set_track(__itt_track *track);

/* ---- Events -------------------------------------------------------------- */
/** Create a user event type.
 *  \param[in] name    event name
 *  \param[in] namelen length of name in characters */
__itt_event __itt_event_create(const char *name, int namelen);
/** Start an instance of an event type; returns 0 on success.
 *  \param[in] event the event type */
int __itt_event_start(__itt_event event);
/** End the nearest unmatched instance of an event type; returns 0 on success.
 *  \param[in] event the event type */
int __itt_event_end(__itt_event event);

/* ---- Histograms ---------------------------------------------------------- */
/** Create a histogram; names are unique within a domain.
 *  \param[in] domain      domain of the histogram
 *  \param[in] name        histogram name
 *  \param[in] x_axis_type type of the X axis data
 *  \param[in] y_axis_type type of the Y axis data */
__itt_histogram *__itt_histogram_create(const __itt_domain *domain, const char *name,
                                        __itt_metadata_type x_axis_type,
                                        __itt_metadata_type y_axis_type);
/** Submit data to a histogram.
 *  \param[in] histogram   the histogram
 *  \param[in] length      number of elements in the axis arrays
 *  \param[in] x_axis_data X values, or NULL to use the indices of y_axis_data
 *  \param[in] y_axis_data Y values */
void __itt_histogram_submit(__itt_histogram *histogram, size_t length, void *x_axis_data,
                            void *y_axis_data);

/* ---- Module load / unload ------------------------------------------------ */
/** Report a module loaded (relocated) outside the system loader.
 *  \param[in] start_addr start address of the loaded module
 *  \param[in] end_addr   end address of the loaded module
 *  \param[in] path       full path of the module file */
void __itt_module_load(void *start_addr, void *end_addr, const char *path);
/** Report that a module is about to be unloaded.
 *  \param[in] addr base address of the loaded module */
void __itt_module_unload(void *addr);
/** Report a module and its loaded sections.
 *  \param[in] module_obj the module and its sections */
void __itt_module_load_with_sections(__itt_module_object *module_obj);
/** Report that a module and its sections were unloaded.
 *  \param[in] module_obj the module and its sections */
void __itt_module_unload_with_sections(__itt_module_object *module_obj);

#ifdef __cplusplus
}
#endif

#endif /* TRACE_API_SPECS_ITTNOTIFY_H */
