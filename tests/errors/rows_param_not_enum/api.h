enum api_kind { api_kind_read = 1, api_kind_write = 2 };
void api_op(enum api_kind kind, int count);
