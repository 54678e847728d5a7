/* ctf_lexer.c: TSDL text into tokens, each with its line and column for messages. */
#include "ctf_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lexer {
  struct ctf_arena *arena;
  const char *file;
  const char *text;
  const char *at;
  uint32_t line;
  const char *line_start;
  struct ctf_token *tokens;
  size_t count, capacity;
  struct ctf_error *error;
};

enum ctf_status ctf_metadata_fail(struct ctf_error *error, const char *file, const char *text,
                                  uint32_t line, uint32_t column, const char *format, ...) {
  if (!error)
    return CTF_ERR_METADATA;
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  /* The source line and a caret under the column, as compilers show it. */
  const char *line_start = text;
  for (uint32_t n = 1; n < line && line_start; n++) {
    line_start = strchr(line_start, '\n');
    if (line_start)
      line_start++;
  }
  if (!line_start)
    line_start = "";
  int line_length = (int)strcspn(line_start, "\n");
  if (line_length > 200)
    line_length = 200;
  char caret[256];
  uint32_t spaces = column > 1 ? column - 1 : 0;
  if (spaces > sizeof caret - 2)
    spaces = sizeof caret - 2;
  for (uint32_t i = 0; i < spaces; i++)
    caret[i] = line_start[i] == '\t' && (int)i < line_length ? '\t' : ' ';
  caret[spaces] = '^';
  caret[spaces + 1] = '\0';
  return ctf_fail(error, CTF_ERR_METADATA, "%s:%u:%u: error: %s\n%.*s\n%s", file, line,
                  column, message, line_length, line_start, caret);
}

static enum ctf_status lex_fail(struct lexer *lx, const char *where, const char *message) {
  return ctf_metadata_fail(lx->error, lx->file, lx->text, lx->line,
                           (uint32_t)(where - lx->line_start) + 1, "%s", message);
}

/* The token list lives only while the metadata is parsed: it grows on the heap (an arena
 * would keep every smaller copy, zeroed, until the trace closes). */
static struct ctf_token *push(struct lexer *lx, enum ctf_token_kind kind, const char *start) {
  if (lx->count == lx->capacity) {
    size_t capacity = lx->capacity ? lx->capacity * 2 : 4096;
    struct ctf_token *tokens =
        capacity <= SIZE_MAX / sizeof *tokens ? realloc(lx->tokens, capacity * sizeof *tokens)
                                              : NULL;
    if (!tokens)
      return NULL;
    lx->tokens = tokens;
    lx->capacity = capacity;
  }
  struct ctf_token *token = &lx->tokens[lx->count++];
  token->kind = kind;
  token->line = lx->line;
  token->column = (uint32_t)(start - lx->line_start) + 1;
  return token;
}

static void newline(struct lexer *lx, const char *after) {
  lx->line++;
  lx->line_start = after;
}

/* Skips blanks and comments; false on an unterminated comment. */
static bool skip_space(struct lexer *lx) {
  for (;;) {
    char c = *lx->at;
    if (c == '\n') {
      lx->at++;
      newline(lx, lx->at);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->at++;
    } else if (c == '/' && lx->at[1] == '*') {
      uint32_t start_line = lx->line;
      const char *start_line_start = lx->line_start;
      const char *p = lx->at + 2;
      while (*p && !(p[0] == '*' && p[1] == '/')) {
        if (*p == '\n')
          newline(lx, p + 1);
        p++;
      }
      if (!*p) {
        /* Report the comment's opening, not the end of the text. */
        lx->line = start_line;
        lx->line_start = start_line_start;
        return false;
      }
      lx->at = p + 2;
    } else if (c == '/' && lx->at[1] == '/') {
      while (*lx->at && *lx->at != '\n')
        lx->at++;
    } else {
      return true;
    }
  }
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static enum ctf_status lex_number(struct lexer *lx) {
  const char *start = lx->at;
  const char *p = start;
  unsigned base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
    base = 2;
    p += 2;
  } else if (p[0] == '0' && isdigit((unsigned char)p[1])) {
    base = 8;
    p += 1;
  }
  uint64_t value = 0;
  const char *digits = p;
  for (;; p++) {
    int digit = hex_digit(*p);
    if (digit < 0 || (unsigned)digit >= base)
      break;
    if (value > (UINT64_MAX - (unsigned)digit) / base)
      return lex_fail(lx, start, "Cannot read integer: it does not fit in 64 bits");
    value = value * base + (unsigned)digit;
  }
  if (p == digits && base != 8)
    return lex_fail(lx, start, "Cannot read integer: no digits after its prefix");
  while (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L')
    p++;
  if (isalnum((unsigned char)*p) || *p == '_')
    return lex_fail(lx, start, "Cannot read integer: unexpected character in it");
  struct ctf_token *token = push(lx, CTF_TOKEN_INTEGER, start);
  if (!token)
    return ctf_fail(lx->error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
  token->integer = value;
  token->text = "";
  lx->at = p;
  return CTF_OK;
}

static enum ctf_status lex_string(struct lexer *lx) {
  const char *start = lx->at;
  const char *p = start + 1;
  /* Unescaped text is never longer than the source. */
  size_t source_length = 0;
  while (p[source_length] && p[source_length] != '"') {
    if (p[source_length] == '\\' && p[source_length + 1])
      source_length++;
    if (p[source_length] == '\n')
      return lex_fail(lx, start, "Cannot read string: newline before its closing quote");
    source_length++;
  }
  if (!p[source_length])
    return lex_fail(lx, start, "Cannot read string: no closing quote");
  char *text = ctf_arena_alloc(lx->arena, source_length + 1);
  if (!text)
    return ctf_fail(lx->error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
  size_t length = 0;
  const char *end = p + source_length;
  while (p < end) {
    char c = *p++;
    if (c != '\\') {
      text[length++] = c;
      continue;
    }
    c = *p++;
    switch (c) {
    case 'n': text[length++] = '\n'; break;
    case 't': text[length++] = '\t'; break;
    case 'r': text[length++] = '\r'; break;
    case 'a': text[length++] = '\a'; break;
    case 'b': text[length++] = '\b'; break;
    case 'f': text[length++] = '\f'; break;
    case 'v': text[length++] = '\v'; break;
    case '0': text[length++] = '\0'; break;
    default: text[length++] = c; break;   /* \\ \" \' \? and anything else: itself */
    }
  }
  text[length] = '\0';
  struct ctf_token *token = push(lx, CTF_TOKEN_STRING, start);
  if (!token)
    return ctf_fail(lx->error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
  token->text = text;
  lx->at = end + 1;
  return CTF_OK;
}

static const char *const multi_char_punct[] = {":=", "...", "->"};
static const char single_char_punct[] = "{}[]()<>;,=.-+:*";
/* The same characters as strings, in the same order (a token's text is one of these). */
static const char *const single_char_texts[] = {"{", "}", "[", "]", "(", ")", "<", ">",
                                                ";", ",", "=", ".", "-", "+", ":", "*"};

/* Every token of the text into lx->tokens, ending with CTF_TOKEN_END. */
static enum ctf_status lex_all(struct lexer *lx, struct ctf_arena *arena, struct ctf_error *error) {
  for (;;) {
    if (!skip_space(lx))
      return lex_fail(lx, lx->at, "Cannot read comment: no closing */");
    const char *start = lx->at;
    char c = *start;
    if (!c)
      break;
    enum ctf_status status = CTF_OK;
    if (isalpha((unsigned char)c) || c == '_') {
      const char *p = start;
      while (isalnum((unsigned char)*p) || *p == '_')
        p++;
      struct ctf_token *token = push(lx, CTF_TOKEN_IDENTIFIER, start);
      char *name = token ? ctf_arena_strndup(arena, start, (size_t)(p - start)) : NULL;
      if (!name)
        return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
      token->text = name;
      lx->at = p;
    } else if (isdigit((unsigned char)c)) {
      status = lex_number(lx);
    } else if (c == '"') {
      status = lex_string(lx);
    } else {
      const char *punct = NULL;
      for (size_t i = 0; i < sizeof multi_char_punct / sizeof *multi_char_punct; i++)
        if (!strncmp(start, multi_char_punct[i], strlen(multi_char_punct[i])))
          punct = multi_char_punct[i];
      const char *single = strchr(single_char_punct, c);
      if (!punct && single)
        punct = single_char_texts[single - single_char_punct];
      if (!punct) {
        char message[96];
        snprintf(message, sizeof message, "Cannot read metadata: unexpected character '%s%c'",
                 isprint((unsigned char)c) ? "" : "\\", isprint((unsigned char)c) ? c : '?');
        return lex_fail(lx, start, message);
      }
      struct ctf_token *token = push(lx, CTF_TOKEN_PUNCT, start);
      if (!token)
        return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
      token->text = punct;
      lx->at = start + strlen(punct);
    }
    if (status != CTF_OK)
      return status;
  }
  struct ctf_token *end = push(lx, CTF_TOKEN_END, lx->at);
  if (!end)
    return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot read metadata: out of memory");
  end->text = "end of metadata";
  return CTF_OK;
}

enum ctf_status ctf_lex(struct ctf_arena *arena, const char *file, const char *text,
                        struct ctf_token_list *tokens, struct ctf_error *error) {
  struct lexer lx = {
      .arena = arena, .file = file, .text = text, .at = text, .line = 1,
      .line_start = text, .error = error};
  enum ctf_status status = lex_all(&lx, arena, error);
  if (status != CTF_OK) {
    free(lx.tokens);
    return status;
  }
  tokens->tokens = lx.tokens;
  tokens->count = lx.count;
  return CTF_OK;
}
