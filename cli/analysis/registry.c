/* registry: every report and export the tracer has, one line each (output.h). Reports
 * print in this order. A new one: a folder under cli/reports/ or cli/exports/ that
 * defines its `const struct output`, and a line here. */
#include <stddef.h>

#include "output.h"

extern const struct output tally_output;       /* reports/tally/tally_output.c */
extern const struct output gaps_output;        /* reports/gaps/gaps_output.c */
extern const struct output samples_output;     /* reports/samples/samples_output.c */
extern const struct output hta_output;         /* reports/hta/hta_output.c */
extern const struct output sources_output;     /* reports/sources/sources_output.c */
extern const struct output steps_output;       /* reports/steps/steps_output.c */
extern const struct output collectives_output; /* reports/collectives/collectives_output.c */
extern const struct output text_output;        /* reports/text/text_output.c */
extern const struct output perfetto_output;    /* exports/perfetto/perfetto_output.c */
extern const struct output chrome_json_output; /* exports/chrome_json/chrome_json_output.c */
extern const struct output csv_output;         /* exports/csv/tally_csv.c */
extern const struct output otf2_output;        /* exports/otf2/otf2_output.c */
extern const struct output flame_output;       /* exports/flame/flame_output.c */
extern const struct output rank_view_output;   /* job/rank_view.c */

const struct output *const outputs[] = {
    &tally_output,
    &gaps_output,
    &samples_output,
    &hta_output,
    &sources_output,
    &steps_output,
    &collectives_output, /* printed by the tally: after it */
    &text_output,
    &perfetto_output,
    &chrome_json_output,
    &csv_output,
    &otf2_output,
    &flame_output,
    &rank_view_output,
    NULL,
};
