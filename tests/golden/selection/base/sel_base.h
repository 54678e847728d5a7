/* Golden case "selection": a header outside the API folder. Its declarations are never
 * modelled, even when a selected function uses them or a pattern matches them. */
#ifndef SEL_BASE_H
#define SEL_BASE_H
typedef unsigned int sel_base_id_t;
typedef struct sel_public_base { int reserved; } sel_public_base_t;
#define SEL_BASE_VERSION 9
#endif
