/* flame_svg: a flame graph drawn as an interactive SVG (`--flame FILE.svg`), from folded
 * stacks (flame.h's lines: `FRAME;FRAME;... WEIGHT`), readable in any browser.
 *
 * Stacks are merged frame by frame from the root up, children in name order, as flame
 * graphs draw them; a frame's width is its weight (its own lines' and every line through
 * it) over the whole, so that each frame's rectangle is `weight * (width - 2 * margin) /
 * total` pixels wide. Each frame is a <g class="f"> holding its title (name, weight and
 * share, the browser's tooltip), its rectangle and its label, with its weight, offset and
 * depth in data-w, data-x and data-d (the tests read them). Frames narrower than 0.1
 * pixel are not drawn (their weight is in their parent's width).
 *
 * The script in the file (written here) shows the frame under the mouse with its weight
 * at the bottom, zooms into a frame on a click (its ancestors greyed, full width; its
 * descendants stretched), resets on a click on the root or on "Reset zoom", and searches
 * (the "Search" button or Ctrl-F: a regular expression) by highlighting the frames whose
 * names match and saying what share of the whole they cover. Colours say what a frame is:
 * Python frames green, device work (below "-") blue, the rest warm.
 */
#ifndef TRACER_FLAME_SVG_H
#define TRACER_FLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* Whether path asks for SVG (it ends in .svg). */
bool flame_svg_path(const char *path);

/* Reads folded stacks from in and writes the graph to out, titled title, its weights in
 * unit ("ns"). Returns 0, or -1 on a read or write error or when out of memory. */
int flame_svg_write(FILE *in, FILE *out, const char *title, const char *unit);

#endif
