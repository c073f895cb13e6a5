/*
 * xalloc.h - allocation that never returns NULL.
 *
 * Out of memory is the one condition library code may stop the process for (STYLE §3):
 * these print one line and exit 4. Everything else returns errors.
 */
#ifndef KGB_UTIL_XALLOC_H
#define KGB_UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *ptr to hold at least `need` elements of `size` bytes, doubling; updates *alloc. */
void xgrow(void **ptr, size_t size, size_t need, size_t *alloc);

#define XGROW(ptr, need, alloc) xgrow((void **)&(ptr), sizeof(*(ptr)), (need), &(alloc))

#endif
