/* A small management library: devices by index, one counter each. */
#ifndef MG_H
#define MG_H
typedef struct mg_device_st *mg_device_t;
#define MG_OK 0
int mg_init(void);
int mg_count(unsigned *count);
int mg_get(unsigned index, mg_device_t *device);
int mg_power(mg_device_t device, unsigned *milliwatts);
int mg_clock(mg_device_t device, int which, unsigned *mhz);
#endif
