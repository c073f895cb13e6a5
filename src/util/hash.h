/*
 * hash.h - SHA-256 for content addressing (candidate files, task directories, the runtime).
 *
 * A struct hash accumulates bytes; hash_hex() finishes it into 64 lowercase hex digits plus NUL.
 * Backed by OpenSSL's libcrypto, which the GPU machines carry (libssl.so.3 needs it).
 */
#ifndef KGB_UTIL_HASH_H
#define KGB_UTIL_HASH_H

#include <stddef.h>

#include "compiler.h"

#define HASH_HEX_LEN 64

struct hash {
	void *ctx; /* EVP_MD_CTX, owned */
};

void hash_init(struct hash *h);
void hash_update(struct hash *h, const void *data, size_t len);
void hash_update_str(struct hash *h, const char *s);
/* Finishes into out[HASH_HEX_LEN + 1] and releases the context. */
void hash_hex(struct hash *h, char out[HASH_HEX_LEN + 1]);
/* Adds "<name>\0<size>\0<bytes>" of a file; -errno if it cannot be read. */
int hash_update_file(struct hash *h, const char *path, const char *name) KGB_WUR;
/* hash_update_file() of a file of at most max_bytes (0: any size): else -E2BIG. */
int hash_update_file_capped(struct hash *h, const char *path, const char *name,
			    size_t max_bytes) KGB_WUR;
/* 64-bit mixing for seeds (splitmix64 finaliser). */
unsigned long long hash_mix64(unsigned long long x);
/* FNV-1a over a string, for seed derivation from names. */
unsigned long long hash_fnv1a(const char *s);

#endif
