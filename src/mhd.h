/*
 * mhd.h - libmicrohttpd, loaded at run time (dlopen), for `kgb serve`.
 *
 * kgb serve is built on GNU libmicrohttpd (docs/service.md says why). The header comes from
 * Debian's libmicrohttpd-dev at build time, but the binary does not link the library: the GPU
 * machines kgb runs on do not have it, and every other command must start there. mhd_load()
 * opens libmicrohttpd.so.12 the first time it is called and fills `mhd`, the handful of
 * functions serve_http.c calls; until then (and when it fails) every pointer is NULL.
 */
#ifndef KGB_MHD_H
#define KGB_MHD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/* The soname of the libmicrohttpd ABI this header describes (Debian 12: 0.9.75). */
#define MHD_SONAME "libmicrohttpd.so.12"

struct mhd_api {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *daemon);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *daemon,
						       enum MHD_DaemonInfoType info_type, ...);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
					  unsigned int status_code,
					  struct MHD_Response *response);
	void (*destroy_response)(struct MHD_Response *response);
	const char *(*lookup_connection_value)(struct MHD_Connection *connection,
					       enum MHD_ValueKind kind, const char *key);
};

extern struct mhd_api mhd;

/* 0 once `mhd` is filled; -ENOENT (the library is missing) or -EPROTO, with err set. */
int mhd_load(struct strbuf *err) KGB_WUR;

#endif
