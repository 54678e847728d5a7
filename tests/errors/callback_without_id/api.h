typedef void (*api_cb_t)(int what);
enum api_callbacks { api_other_cb = 1 };
void api_set_callback(enum api_callbacks which, api_cb_t cb);
