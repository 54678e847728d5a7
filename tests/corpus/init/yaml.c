/* A libyaml client: parses a document event by event, then a broken one, whose parse
 * returns 0 (an error, as yaml.h says). */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

static int parse(const char *text) {
  yaml_parser_t parser;
  yaml_event_t event;
  int events = 0;
  if (!yaml_parser_initialize(&parser))
    return -1;
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  for (;;) {
    if (!yaml_parser_parse(&parser, &event))
      break;
    events++;
    int end = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
    if (end)
      break;
  }
  yaml_parser_delete(&parser);
  return events;
}

int main(void) {
  printf("good: %d events\n", parse("name: tracer\nlist: [1, 2, 3]\n"));
  printf("broken: %d events\n", parse("key: [unclosed\n"));
  return 0;
}
