/* A jansson client: builds, dumps and parses JSON; json_incref and json_decref are static
 * inline functions of jansson.h, which no tracer can see. One parse fails. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  json_t *root = json_object();
  json_object_set_new(root, "name", json_string("tracer"));
  json_object_set_new(root, "calls", json_integer(3));
  json_t *list = json_array();
  for (int i = 0; i < 3; i++)
    json_array_append_new(list, json_integer(i));
  json_object_set(root, "list", list);
  json_decref(list);
  char *text = json_dumps(root, JSON_SORT_KEYS);
  json_error_t error;
  json_t *again = json_loads(text, 0, &error);
  json_t *broken = json_loads("{\"unclosed\": ", 0, &error);
  printf("%s; again %s, broken %s\n", text, again ? "parsed" : "failed",
         broken ? "parsed" : error.text);
  free(text);
  json_decref(again);
  json_decref(root);
  return 0;
}
