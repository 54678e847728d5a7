/* analysis: one run of the tracer's reports and exports over a trace: those the request
 * asks for (output.h), the tally and the timeline when one of them consumes those, and
 * one read of the trace for all of them (trace_reader.h). Library code: it prints the
 * reports on request->out and writes the exports' files, never a message. */
#ifndef TRACER_ANALYSIS_H
#define TRACER_ANALYSIS_H

#include "diag.h"
#include "output.h"

enum analysis_status {
  ANALYSIS_OK,
  ANALYSIS_FAILED,        /* some output failed, or part of the trace could not be read */
  ANALYSIS_NO_TRACE,      /* the trace cannot be opened: nothing was made */
  ANALYSIS_BAD_WINDOW,    /* the window or steps asked for find nothing: nothing was made */
};

/* Runs the analysis. Each failure is one cause in d, a whole sentence to print on its
 * own line, in the order the outputs close. */
enum analysis_status analysis_run(const struct analysis_request *request,
                                  struct analysis_result *result, struct diag *d);

#endif
