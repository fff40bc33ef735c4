#ifndef ARCHIVE_SERVICE_CLIBEVENT_SHIM_H
#define ARCHIVE_SERVICE_CLIBEVENT_SHIM_H
#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <event2/listener.h>
#endif
