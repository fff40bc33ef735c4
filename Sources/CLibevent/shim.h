#ifndef ARCHIVE_SERVICE_CLIBEVENT_SHIM_H
#define ARCHIVE_SERVICE_CLIBEVENT_SHIM_H

/* The system headers come first: libevent's event-config.h defines _GNU_SOURCE, and system headers
 * first seen after that would declare their types differently from Swift's Glibc module. */
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>

#endif
