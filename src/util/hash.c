#include "hash.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

void hash_init(struct hash *h)
{
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		fprintf(stderr, "kgb: cannot initialise SHA-256\n");
		abort();
	}
}

void hash_update(struct hash *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void hash_update_str(struct hash *h, const char *s)
{
	hash_update(h, s, strlen(s) + 1);
}

void hash_hex(struct hash *h, char out[HASH_HEX_LEN + 1])
{
	unsigned char md[32];
	unsigned int n = 0;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	for (unsigned int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[HASH_HEX_LEN] = '\0';
}

int hash_update_file(struct hash *h, const char *path, const char *name)
{
	return hash_update_file_capped(h, path, name, 0);
}

int hash_update_file_capped(struct hash *h, const char *path, const char *name, size_t max_bytes)
{
	struct strbuf sb = STRBUF_INIT;
	char size[32];
	int r;

	r = strbuf_read_file(&sb, path, max_bytes);
	if (r < 0)
		return r;
	snprintf(size, sizeof(size), "%zu", sb.len);
	hash_update_str(h, name);
	hash_update_str(h, size);
	hash_update(h, sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

unsigned long long hash_mix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

unsigned long long hash_fnv1a(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}
