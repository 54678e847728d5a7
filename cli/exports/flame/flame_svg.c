/* flame_svg: see flame_svg.h. */
#include "flame_svg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "key_map.h"
#include "name_table.h"

enum {
  WIDTH = 1200,   /* pixels */
  MARGIN = 10,    /* left and right */
  FRAME_HEIGHT = 16,
  TOP = 56,       /* the title and the buttons */
  BOTTOM = 34,    /* the details line */
  NO_FRAME = UINT32_MAX,
};
#define MIN_PIXELS 0.1

struct frame {
  uint32_t name, parent, first_child, next_sibling;
  uint64_t total;   /* its lines' weight and its children's */
  uint64_t x;       /* offset from the left, in weight */
  uint32_t depth;
  uint8_t kind;     /* enum kind */
};

enum kind { KIND_ROOT, KIND_HOST, KIND_PYTHON, KIND_DASH, KIND_DEVICE };

struct graph {
  struct name_table names;
  struct key_map children; /* parent << 32 | name -> frame + 1 */
  struct frame *frames;
  uint32_t count, cap;
  uint32_t max_depth;
};

static uint32_t add_frame(struct graph *g, uint32_t parent, uint32_t name) {
  bool added;
  uint64_t *slot = key_map_put(&g->children, (uint64_t)parent << 32 | name, &added);
  if (!slot)
    return NO_FRAME;
  if (!added)
    return (uint32_t)(*slot - 1);
  if (g->count == g->cap) {
    uint32_t cap = g->cap ? 2 * g->cap : 1024;
    struct frame *grown = realloc(g->frames, cap * sizeof *grown);
    if (!grown)
      return NO_FRAME;
    g->frames = grown, g->cap = cap;
  }
  struct frame *p = &g->frames[parent];
  uint32_t depth = p->depth + 1;
  const char *text = name_table_name(&g->names, name);
  uint8_t kind = parent == 0                                     ? KIND_ROOT
                 : p->kind == KIND_DASH || p->kind == KIND_DEVICE ? KIND_DEVICE
                 : strcmp(text, "-") == 0                        ? KIND_DASH
                 : strstr(text, ".py:")                          ? KIND_PYTHON
                                                                 : KIND_HOST;
  g->frames[g->count] = (struct frame){name, parent, NO_FRAME, NO_FRAME, 0, 0, depth, kind};
  g->max_depth = depth > g->max_depth ? depth : g->max_depth;
  *slot = ++g->count;
  return g->count - 1;
}

/* One folded line into the graph: its frames from the root, its weight on the last. */
static int add_line(struct graph *g, char *line) {
  char *space = strrchr(line, ' ');
  if (!space)
    return 0; /* not a folded line: left out */
  *space = 0;
  uint64_t weight = strtoull(space + 1, NULL, 10);
  uint32_t at = 0;
  for (char *frame = line, *end; frame; frame = end ? end + 1 : NULL) {
    end = strchr(frame, ';');
    size_t len = end ? (size_t)(end - frame) : strlen(frame);
    uint32_t name = name_table_id(&g->names, frame, len);
    if (name == UINT32_MAX || (at = add_frame(g, at, name)) == NO_FRAME)
      return -1;
  }
  g->frames[at].total += weight;
  return 0;
}

static const struct graph *sort_graph;
static int by_name(const void *a, const void *b) {
  const struct frame *fa = &sort_graph->frames[*(const uint32_t *)a];
  const struct frame *fb = &sort_graph->frames[*(const uint32_t *)b];
  return strcmp(name_table_name(&sort_graph->names, fa->name),
                name_table_name(&sort_graph->names, fb->name));
}

/* Totals from the leaves down (a frame comes after its parent), children linked in name
 * order, and each frame's offset: its parent's, plus its elder siblings' totals. */
static int lay_out(struct graph *g) {
  for (uint32_t i = g->count; i-- > 1;)
    g->frames[g->frames[i].parent].total += g->frames[i].total;
  uint32_t *order = malloc((g->count ? g->count : 1) * sizeof *order);
  if (!order)
    return -1;
  for (uint32_t i = 0; i < g->count; i++)
    order[i] = i;
  sort_graph = g;
  qsort(order + 1, g->count - 1, sizeof *order, by_name);
  for (uint32_t k = g->count; k-- > 1;) { /* last name first: each head ends up first */
    struct frame *f = &g->frames[order[k]];
    f->next_sibling = g->frames[f->parent].first_child;
    g->frames[f->parent].first_child = order[k];
  }
  free(order);
  for (uint32_t i = 0; i < g->count; i++) { /* parents before children */
    uint64_t x = g->frames[i].x;
    for (uint32_t c = g->frames[i].first_child; c != NO_FRAME; c = g->frames[c].next_sibling) {
      g->frames[c].x = x;
      x += g->frames[c].total;
    }
  }
  return 0;
}

static void put_escaped(FILE *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    default:
      if ((unsigned char)*s >= 0x20 || *s == '\t')
        fputc(*s, out);
    }
  }
}

/* A colour that a frame's name always gets, in its kind's hues. */
static void colour(const struct frame *f, const char *name, char *out, size_t size) {
  uint32_t h = 2166136261u;
  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char)*p) * 16777619u;
  unsigned a = h % 64, b = (h >> 8) % 64;
  switch (f->kind) {
  case KIND_ROOT:
  case KIND_DASH: snprintf(out, size, "rgb(%u,%u,%u)", 190 + a / 4, 190 + a / 4, 190 + a / 4); break;
  case KIND_PYTHON: snprintf(out, size, "rgb(%u,%u,%u)", 80 + a, 190 + b / 2, 80 + a / 2); break;
  case KIND_DEVICE: snprintf(out, size, "rgb(%u,%u,%u)", 70 + a, 130 + b, 235); break;
  default: snprintf(out, size, "rgb(%u,%u,%u)", 225 + a / 2, 90 + 2 * b, 40 + a / 3); break;
  }
}

static const char script[] =
    "\"use strict\";\n"
    "var svg, details, matched, unit, total, W, pad, frames = [], zoomed = null, searched = null;\n"
    "function init() {\n"
    "  svg = document.documentElement;\n"
    "  details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  unit = svg.getAttribute('data-unit');\n"
    "  total = +svg.getAttribute('data-total');\n"
    "  W = +svg.getAttribute('width');\n"
    "  pad = +svg.getAttribute('data-pad');\n"
    "  var gs = document.querySelectorAll('g.f');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], r = g.querySelector('rect');\n"
    "    var f = {g: g, rect: r, text: g.querySelector('text'), fill: r.getAttribute('fill'),\n"
    "             x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),\n"
    "             d: +g.getAttribute('data-d'), name: g.getAttribute('data-n')};\n"
    "    frames.push(f);\n"
    "    g.addEventListener('mouseover', show.bind(null, f));\n"
    "    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "    g.addEventListener('click', zoom.bind(null, f));\n"
    "  }\n"
    "  document.getElementById('reset').addEventListener('click', function () { zoom(null); });\n"
    "  document.getElementById('search').addEventListener('click', search);\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
    "    if (e.key === 'Escape') { unsearch(); zoom(null); }\n"
    "  });\n"
    "  draw();\n"
    "}\n"
    "function share(w) { return (100 * w / total).toFixed(2) + '%'; }\n"
    "function show(f) {\n"
    "  details.textContent = f.name + ' (' + f.w.toLocaleString() + ' ' + unit + ', ' +\n"
    "                        share(f.w) + ')';\n"
    "}\n"
    "function label(f, x, w) {\n"
    "  var fit = Math.floor((w - 6) / 7);\n"
    "  f.text.setAttribute('x', (x + 3).toFixed(1));\n"
    "  f.text.textContent = fit < 3 ? '' : f.name.length <= fit ? f.name\n"
    "                                    : f.name.substring(0, fit - 2) + '..';\n"
    "}\n"
    "function draw() {\n"
    "  var x0 = zoomed ? zoomed.x : 0, w0 = zoomed ? zoomed.w : total;\n"
    "  var s = (W - 2 * pad) / w0;\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var f = frames[i];\n"
    "    var inside = !zoomed || (f.d >= zoomed.d && f.x >= x0 && f.x + f.w <= x0 + w0);\n"
    "    var above = zoomed && f.d < zoomed.d && f.x <= x0 && f.x + f.w >= x0 + w0;\n"
    "    if ((!inside && !above) || (inside && f.w * s < 0.1)) {\n"
    "      f.g.style.display = 'none';\n"
    "      continue;\n"
    "    }\n"
    "    f.g.style.display = '';\n"
    "    f.g.style.opacity = above ? 0.6 : 1;\n"
    "    var x = above ? pad : pad + (f.x - x0) * s, w = above ? W - 2 * pad : f.w * s;\n"
    "    f.rect.setAttribute('x', x.toFixed(3));\n"
    "    f.rect.setAttribute('width', w.toFixed(3));\n"
    "    label(f, x, w);\n"
    "  }\n"
    "  document.getElementById('reset').style.display = zoomed ? '' : 'none';\n"
    "}\n"
    "function zoom(f) {\n"
    "  zoomed = f && f.d > 0 ? f : null;\n"
    "  draw();\n"
    "}\n"
    "function unsearch() {\n"
    "  searched = null;\n"
    "  for (var i = 0; i < frames.length; i++) frames[i].rect.setAttribute('fill', frames[i].fill);\n"
    "  matched.textContent = ' ';\n"
    "}\n"
    "function search() {\n"
    "  var term = prompt('Frames to find (a regular expression)', searched ? searched.source : '');\n"
    "  if (term === null) return;\n"
    "  unsearch();\n"
    "  if (term === '') return;\n"
    "  try { searched = new RegExp(term); } catch (e) { alert('Not a regular expression: ' + term); return; }\n"
    "  var spans = [];\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var f = frames[i];\n"
    "    if (f.d > 0 && searched.test(f.name)) {\n"
    "      f.rect.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      spans.push([f.x, f.x + f.w]);\n"
    "    }\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var covered = 0, end = -1;\n"
    "  for (var k = 0; k < spans.length; k++) {\n"
    "    var from = Math.max(spans[k][0], end);\n"
    "    if (spans[k][1] > from) covered += spans[k][1] - from;\n"
    "    end = Math.max(end, spans[k][1]);\n"
    "  }\n"
    "  matched.textContent = 'Matched: ' + share(covered);\n"
    "}\n";

static void write_frame(const struct graph *g, uint32_t i, double scale, uint32_t height, FILE *out) {
  const struct frame *f = &g->frames[i];
  const char *name = i ? name_table_name(&g->names, f->name) : "all";
  double x = MARGIN + (double)f->x * scale, w = (double)f->total * scale;
  double y = (double)height - BOTTOM - (double)(f->depth + 1) * FRAME_HEIGHT;
  char fill[32];
  colour(f, name, fill, sizeof fill);
  fprintf(out, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%" PRIu32
               "\" data-n=\"",
          f->x, f->total, f->depth);
  put_escaped(out, name);
  fputs("\"><title>", out);
  put_escaped(out, name);
  fprintf(out, " (%" PRIu64 ", %.2f%%)</title>", f->total,
          g->frames[0].total ? 100.0 * (double)f->total / (double)g->frames[0].total : 0.0);
  fprintf(out,
          "<rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
          "<text x=\"%.1f\" y=\"%.1f\"></text></g>\n",
          x, y, w, FRAME_HEIGHT - 1, fill, x + 3, y + FRAME_HEIGHT - 4.5);
}

static int write_svg(const struct graph *g, FILE *out, const char *title, const char *unit) {
  uint64_t total = g->frames[0].total;
  uint32_t height = TOP + (g->max_depth + 1) * FRAME_HEIGHT + BOTTOM;
  double scale = total ? (double)(WIDTH - 2 * MARGIN) / (double)total : 0;
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%" PRIu32
          "\" viewBox=\"0 0 %d %" PRIu32 "\" onload=\"init()\" data-total=\"%" PRIu64
          "\" data-pad=\"%d\" data-unit=\"",
          WIDTH, height, WIDTH, height, total, MARGIN);
  put_escaped(out, unit);
  fputs("\">\n<style>\n"
        "text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
        "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
        "g.f text { pointer-events: none; }\n"
        ".button { fill: rgb(60,60,160); cursor: pointer; text-decoration: underline; }\n"
        "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n",
        out);
  fputs(script, out);
  fprintf(out,
          "]]></script>\n"
          "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%" PRIu32 "\" fill=\"rgb(250,250,245)\"/>\n"
          "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
          WIDTH, height, WIDTH / 2);
  put_escaped(out, title);
  fprintf(out,
          "</text>\n"
          "<text id=\"reset\" class=\"button\" x=\"%d\" y=\"44\">Reset zoom</text>\n"
          "<text id=\"search\" class=\"button\" x=\"%d\" y=\"44\" text-anchor=\"end\">Search</text>\n"
          "<text id=\"matched\" x=\"%d\" y=\"%" PRIu32 "\" text-anchor=\"end\"> </text>\n"
          "<text id=\"details\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n",
          MARGIN, WIDTH - MARGIN, WIDTH - MARGIN, height - 12, MARGIN, height - 12);
  for (uint32_t i = 0; i < g->count; i++)
    if ((double)g->frames[i].total * scale >= MIN_PIXELS)
      write_frame(g, i, scale, height, out);
  fputs("</svg>\n", out);
  return ferror(out) ? -1 : 0;
}

bool flame_svg_path(const char *path) {
  size_t len = strlen(path);
  return len > 4 && strcmp(path + len - 4, ".svg") == 0;
}

int flame_svg_write(FILE *in, FILE *out, const char *title, const char *unit) {
  struct graph g = {0};
  g.frames = malloc(1024 * sizeof *g.frames);
  int rc = g.frames ? 0 : -1;
  if (g.frames) {
    g.cap = 1024, g.count = 1;
    g.frames[0] = (struct frame){UINT32_MAX, NO_FRAME, NO_FRAME, NO_FRAME, 0, 0, 0, KIND_ROOT};
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while (rc == 0 && (len = getline(&line, &cap, in)) > 0) {
    if (line[len - 1] == '\n')
      line[len - 1] = 0;
    rc = add_line(&g, line);
  }
  free(line);
  if (rc == 0 && ferror(in))
    rc = -1;
  if (rc == 0)
    rc = lay_out(&g);
  if (rc == 0)
    rc = write_svg(&g, out, title, unit);
  name_table_free(&g.names);
  key_map_free(&g.children);
  free(g.frames);
  return rc;
}
