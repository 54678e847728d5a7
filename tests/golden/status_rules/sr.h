/* Per-function status rules: an int result is a status for some functions only (others
 * return counts or versions), some functions have several success values or a
 * "not ready" value that is no error, and one returns a handle with its status in an
 * out-param. */
#ifndef SR_H
#define SR_H
#define SR_OK 0
#define SR_DONE 1
#define SR_AGAIN (-5)
#define SR_ERROR (-1)
typedef enum sr_state { SR_STATE_IDLE = 0, SR_STATE_BUSY = 3 } sr_state;

int sr_init(void);                       /* SR_OK or SR_ERROR */
int sr_step(int flush);                  /* SR_OK, SR_DONE at the end, SR_AGAIN: call again */
int sr_query(int id);                    /* SR_STATE_BUSY while work runs: not an error */
int sr_read(void *buf, unsigned len);    /* a byte count, not a status */
int sr_version(void);                    /* a version, not a status */
int sr_open(const char *name, int *err); /* a handle; the status goes to *err */
#endif
