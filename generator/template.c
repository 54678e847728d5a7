/* template: parse once into a node tree, then render over a value tree. */
#include "template.h"

#include <stdlib.h>
#include <string.h>

enum node_kind { NODE_TEXT, NODE_VARIABLE, NODE_SECTION, NODE_INVERTED };

struct node {
  enum node_kind kind;
  char *text; /* NODE_TEXT: the text; else the name */
  unsigned line, column;
  struct node **children; /* sections */
  size_t count, cap;
};

struct template {
  char *path;
  struct node *root;
};

static struct node *node_new(enum node_kind kind, const char *text, size_t len, unsigned line,
                             unsigned column) {
  struct node *n = xcalloc(1, sizeof *n);
  n->kind = kind;
  n->text = xstrndup(text, len);
  n->line = line;
  n->column = column;
  return n;
}

static void node_add(struct node *parent, struct node *child) {
  if (parent->count == parent->cap) {
    parent->cap = parent->cap ? parent->cap * 2 : 8;
    parent->children = xrealloc(parent->children, parent->cap * sizeof *parent->children);
  }
  parent->children[parent->count++] = child;
}

static void node_free(struct node *n) {
  if (!n)
    return;
  for (size_t i = 0; i < n->count; i++)
    node_free(n->children[i]);
  free(n->children);
  free(n->text);
  free(n);
}

/* A tag found on a line: its kind character ('#', '^', '/', '!', or 0 for a variable). */
struct tag {
  const char *start, *end; /* "{{" .. past "}}" */
  char kind;
  const char *name;
  size_t name_len;
};

static bool is_blank(const char *s, const char *end) {
  for (; s < end; s++)
    if (*s != ' ' && *s != '\t')
      return false;
  return true;
}

static int parse_tag(const char *path, const char *s, const char *line_end, unsigned line,
                     unsigned column, struct tag *tag, struct diag *d) {
  const char *close = strstr(s + 2, "}}");
  if (!close || close > line_end)
    return diag_error_at(d, path, line, column, "Cannot parse template: unclosed tag");
  tag->start = s;
  tag->end = close + 2;
  const char *p = s + 2;
  tag->kind = (*p == '#' || *p == '^' || *p == '/' || *p == '!') ? *p++ : 0;
  while (*p == ' ')
    p++;
  const char *q = close;
  while (q > p && q[-1] == ' ')
    q--;
  tag->name = p;
  tag->name_len = (size_t)(q - p);
  if (tag->kind != '!' && tag->name_len == 0)
    return diag_error_at(d, path, line, column, "Cannot parse template: empty tag");
  return 0;
}

int template_parse(const char *path, const char *text, struct template **out, struct diag *d) {
  struct template *t = xcalloc(1, sizeof *t);
  t->path = xstrdup(path);
  t->root = node_new(NODE_SECTION, "", 0, 1, 1);
  struct node *stack[64];
  size_t depth = 0;
  stack[depth++] = t->root;
  unsigned line = 1;
  int rc = 0;
  for (const char *s = text; *s && rc == 0; line++) {
    const char *nl = strchr(s, '\n');
    const char *line_end = nl ? nl : s + strlen(s);
    const char *next = nl ? nl + 1 : line_end;
    /* Standalone: one non-variable tag and only blanks around it drops the whole line. */
    const char *first = strstr(s, "{{");
    struct tag tag;
    bool standalone = false;
    if (first && first < line_end && is_blank(s, first) &&
        parse_tag(path, first, line_end, line, (unsigned)(first - s) + 1, &tag, d) == 0 &&
        tag.kind != 0 && is_blank(tag.end, line_end) &&
        !(strstr(tag.end, "{{") && strstr(tag.end, "{{") < line_end)) {
      line_end = tag.end;
      next = nl ? nl + 1 : line_end;
      s = first;
      standalone = true;
    }
    const char *p = s;
    while (p < line_end && rc == 0) {
      const char *open = strstr(p, "{{");
      if (!open || open >= line_end) {
        node_add(stack[depth - 1], node_new(NODE_TEXT, p, (size_t)(line_end - p), line, 1));
        p = line_end;
        break;
      }
      if (open > p)
        node_add(stack[depth - 1], node_new(NODE_TEXT, p, (size_t)(open - p), line, 1));
      unsigned column = (unsigned)(open - s) + 1;
      if (parse_tag(path, open, line_end, line, column, &tag, d)) {
        rc = -1;
        break;
      }
      if (tag.kind == 0) {
        node_add(stack[depth - 1], node_new(NODE_VARIABLE, tag.name, tag.name_len, line, column));
      } else if (tag.kind == '#' || tag.kind == '^') {
        if (depth == sizeof stack / sizeof *stack) {
          rc = diag_error_at(d, path, line, column, "Cannot parse template: sections too deep");
          break;
        }
        struct node *n = node_new(tag.kind == '#' ? NODE_SECTION : NODE_INVERTED, tag.name,
                                  tag.name_len, line, column);
        node_add(stack[depth - 1], n);
        stack[depth++] = n;
      } else if (tag.kind == '/') {
        struct node *top = stack[depth - 1];
        if (depth == 1 || strlen(top->text) != tag.name_len ||
            strncmp(top->text, tag.name, tag.name_len) != 0) {
          rc = diag_error_at(d, path, line, column,
                             "Cannot parse template: {{/%.*s}} closes no open section%s%s",
                             (int)tag.name_len, tag.name, depth > 1 ? "; open: " : "",
                             depth > 1 ? top->text : "");
          break;
        }
        depth--;
      }
      p = tag.end;
    }
    if (rc == 0 && nl && !standalone)
      node_add(stack[depth - 1], node_new(NODE_TEXT, "\n", 1, line, 1));
    s = next;
  }
  if (rc == 0 && depth > 1)
    rc = diag_error_at(d, path, stack[depth - 1]->line, stack[depth - 1]->column,
                       "Cannot parse template: section %s is never closed",
                       stack[depth - 1]->text);
  if (rc) {
    template_free(t);
    return -1;
  }
  *out = t;
  return 0;
}

/* The lookup stack: each frame is a value, and for list items their position. */
struct frame {
  const struct tree *value;
  const struct tree *list; /* the list value is item `index` of, or NULL */
  size_t index;
};

struct renderer {
  const struct template *t;
  struct frame frames[64];
  size_t depth;
  struct strbuf *out;
  struct diag *d;
};

static struct tree position_true = {TREE_BOOL, NULL, true, NULL, NULL, 0, 0};
static struct tree position_false = {TREE_BOOL, NULL, false, NULL, NULL, 0, 0};

/* Looks up one name component in the stack, innermost frame first. */
static const struct tree *lookup_head(struct renderer *r, const char *name, size_t len,
                                      struct tree *index_value) {
  for (size_t i = r->depth; i-- > 0;) {
    const struct frame *f = &r->frames[i];
    if (f->list) {
      if (len == 6 && strncmp(name, "_first", 6) == 0)
        return f->index == 0 ? &position_true : &position_false;
      if (len == 5 && strncmp(name, "_last", 5) == 0)
        return f->index + 1 == f->list->len ? &position_true : &position_false;
      if (len == 6 && strncmp(name, "_index", 6) == 0) {
        free(index_value->string);
        index_value->string = xasprintf("%zu", f->index);
        return index_value;
      }
    }
    if (f->value->kind == TREE_MAP) {
      for (size_t k = 0; k < f->value->len; k++)
        if (strlen(f->value->keys[k]) == len && strncmp(f->value->keys[k], name, len) == 0)
          return f->value->items[k];
    }
  }
  return NULL;
}

static const struct tree *lookup(struct renderer *r, const char *name, struct tree *index_value) {
  if (strcmp(name, ".") == 0)
    return r->frames[r->depth - 1].value;
  const char *dot = strchr(name, '.');
  size_t len = dot ? (size_t)(dot - name) : strlen(name);
  const struct tree *v = lookup_head(r, name, len, index_value);
  while (v && dot) {
    name = dot + 1;
    dot = strchr(name, '.');
    len = dot ? (size_t)(dot - name) : strlen(name);
    char *key = xstrndup(name, len);
    v = tree_get(v, key);
    free(key);
  }
  return v;
}

static bool truthy(const struct tree *v) {
  if (!v)
    return false;
  switch (v->kind) {
  case TREE_STRING: return v->string[0] != '\0';
  case TREE_BOOL: return v->boolean;
  case TREE_LIST: return v->len > 0;
  case TREE_MAP: return true;
  }
  return false;
}

static int render_nodes(struct renderer *r, const struct node *parent);

/* Pushes v, which is item `index` of list (NULL: v is not a list item). */
static int push(struct renderer *r, const struct node *n, const struct tree *v,
                const struct tree *list, size_t index) {
  if (r->depth == sizeof r->frames / sizeof *r->frames)
    return diag_error_at(r->d, r->t->path, n->line, n->column,
                         "Cannot render template: sections nested too deep");
  r->frames[r->depth++] = (struct frame){v, list, index};
  return 0;
}

/* Whether an enclosing section is iterating list. */
static bool iterating(const struct renderer *r, const struct tree *list) {
  for (size_t i = 0; i < r->depth; i++)
    if (r->frames[i].list == list)
      return true;
  return false;
}

static int render_section(struct renderer *r, const struct node *n) {
  struct tree index_value = {TREE_STRING, NULL, false, NULL, NULL, 0, 0};
  const struct tree *v = lookup(r, n->text, &index_value);
  int rc = 0;
  if (n->kind == NODE_INVERTED) {
    if (!truthy(v))
      rc = render_nodes(r, n);
  } else if (v && v->kind == TREE_LIST && iterating(r, v)) {
    /* Names are looked up in outer frames too, so a section inside an item of a list can
     * name that same list: rendering it all again per item, at every level, takes time
     * exponential in the nesting (a hang, found by tests/fuzz/fuzz_template.c). */
    rc = diag_error_at(r->d, r->t->path, n->line, n->column,
                       "Cannot render template: section %s is inside an item of that list",
                       n->text);
  } else if (v && v->kind == TREE_LIST) {
    for (size_t i = 0; i < v->len && rc == 0; i++) {
      if ((rc = push(r, n, v->items[i], v, i)) == 0) {
        rc = render_nodes(r, n);
        r->depth--;
      }
    }
  } else if (v && v->kind == TREE_MAP) {
    if ((rc = push(r, n, v, NULL, 0)) == 0) {
      rc = render_nodes(r, n);
      r->depth--;
    }
  } else if (truthy(v)) {
    rc = render_nodes(r, n);
  }
  free(index_value.string);
  return rc;
}

static int render_nodes(struct renderer *r, const struct node *parent) {
  for (size_t i = 0; i < parent->count; i++) {
    const struct node *n = parent->children[i];
    if (n->kind == NODE_TEXT) {
      strbuf_add(r->out, n->text);
    } else if (n->kind == NODE_VARIABLE) {
      struct tree index_value = {TREE_STRING, NULL, false, NULL, NULL, 0, 0};
      const struct tree *v = lookup(r, n->text, &index_value);
      if (!v || (v->kind != TREE_STRING && v->kind != TREE_BOOL)) {
        free(index_value.string);
        return diag_error_at(r->d, r->t->path, n->line, n->column,
                             "Cannot render template: name=%s %s", n->text,
                             v ? "is a list or map, not a string" : "is not defined");
      }
      strbuf_add(r->out, v->kind == TREE_STRING ? v->string : (v->boolean ? "true" : "false"));
      free(index_value.string);
    } else if (render_section(r, n)) {
      return -1;
    }
  }
  return 0;
}

int template_render(const struct template *t, const struct tree *root, struct strbuf *out,
                    struct diag *d) {
  struct renderer r;
  memset(&r, 0, sizeof r);
  r.t = t;
  r.out = out;
  r.d = d;
  r.frames[r.depth++] = (struct frame){root, NULL, 0};
  return render_nodes(&r, t->root);
}

void template_free(struct template *t) {
  if (!t)
    return;
  node_free(t->root);
  free(t->path);
  free(t);
}
