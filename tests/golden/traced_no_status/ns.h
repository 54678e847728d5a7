/* A traced backend with no status at all, and enums no function uses: no names table may
 * be left unused under -Werror. */
#ifndef NS_H
#define NS_H
typedef enum ns_mode { NS_FAST, NS_SLOW } ns_mode;
enum ns_unused { NS_A = 1, NS_B = 2 };
void ns_start(int n);
double ns_rate(void);
#endif
