#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t size)
{
	fprintf(stderr, "kgb: out of memory allocating %zu bytes\n", size);
	exit(4);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void xgrow(void **ptr, size_t size, size_t need, size_t *alloc)
{
	size_t n;

	if (need <= *alloc)
		return;
	n = *alloc ? *alloc : 8;
	while (n < need)
		n *= 2;
	*ptr = xrealloc(*ptr, n * size);
	*alloc = n;
}
