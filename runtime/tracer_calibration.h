/* tracer_calibration: the cost of reading the clock and of recording an event, measured in
 * the traced process. See tracer_calibration.c. */
#ifndef TRACER_CALIBRATION_H
#define TRACER_CALIBRATION_H

#include <stdint.h>

/* The least difference between two trace clock reads in a row, in trace clock units. */
uint64_t tracer_clock_read_cost(void);

/* Writes lttng_ust_tracer:calibration when the tracer asked for it (TRACER_CALIBRATE=1). */
void tracer_calibrate_if_asked(void);

#endif
