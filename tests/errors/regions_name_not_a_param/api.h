void api_begin(const char *label);
void api_begin_unnamed(int level);
void api_end(void);
