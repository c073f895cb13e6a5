/*
 * mhd.c - libmicrohttpd through dlopen (mhd.h).
 */
#include "mhd.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mhd_api mhd;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *handle;

/* One symbol into *slot (a function pointer's storage): 0 or -EPROTO. */
static int sym(const char *name, void *slot, struct strbuf *err)
{
	void *p = dlsym(handle, name);

	if (!p) {
		strbuf_addf(err, "%s has no symbol '%s': not the libmicrohttpd kgb was built for",
			    MHD_SONAME, name);
		return -EPROTO;
	}
	/* POSIX: a function pointer and a void * have the same representation (dlsym). */
	memcpy(slot, &p, sizeof(p));
	return 0;
}

int mhd_load(struct strbuf *err)
{
	struct mhd_api api = {0};
	const char *lib;
	int r = 0;

	pthread_mutex_lock(&load_lock);
	if (mhd.start_daemon)
		goto out;
	/* $KGB_MHD_LIBRARY names another file (the tests name a missing one). */
	lib = getenv("KGB_MHD_LIBRARY") && *getenv("KGB_MHD_LIBRARY") ? getenv("KGB_MHD_LIBRARY")
								       : MHD_SONAME;
	if (!handle && !(handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
		const char *why = dlerror();

		strbuf_addf(err, "cannot load %s (%s): kgb serve needs GNU libmicrohttpd (Debian: "
			    "apt-get install libmicrohttpd12)", lib, why ? why : "not found");
		r = -ENOENT;
		goto out;
	}
	if ((r = sym("MHD_start_daemon", &api.start_daemon, err)) < 0 ||
	    (r = sym("MHD_stop_daemon", &api.stop_daemon, err)) < 0 ||
	    (r = sym("MHD_get_daemon_info", &api.get_daemon_info, err)) < 0 ||
	    (r = sym("MHD_create_response_from_buffer", &api.create_response_from_buffer, err)) < 0 ||
	    (r = sym("MHD_add_response_header", &api.add_response_header, err)) < 0 ||
	    (r = sym("MHD_queue_response", &api.queue_response, err)) < 0 ||
	    (r = sym("MHD_destroy_response", &api.destroy_response, err)) < 0 ||
	    (r = sym("MHD_lookup_connection_value", &api.lookup_connection_value, err)) < 0)
		goto out;
	mhd = api;
out:
	pthread_mutex_unlock(&load_lock);
	return r;
}
