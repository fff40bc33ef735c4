/*
 * The floor under archive-service's HTTP costs: a bare evhttp server with the service's shape
 * (LOOPS event loops, each with its own SO_REUSEPORT listener) that converts nothing. GET
 * /healthz answers {"status":"ok"}; POST /v1/decode reads the body and answers the bytes of
 * REPLY_FILE (the JSON the service writes for the archive the load sends), with the headers the
 * service's replies carry. scripts/bench/bare_compare.sh builds and runs it beside the service.
 *
 * Build: cc -O2 -o bare_evhttp bare_evhttp.c -levent -levent_pthreads -lpthread
 * Usage: bare_evhttp PORT REPLY_FILE [LOOPS]
 */
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *reply;
static size_t reply_length;
static unsigned long served;

static void add_headers(struct evhttp_request *request) {
    struct evkeyvalq *headers = evhttp_request_get_output_headers(request);
    char id[32];
    snprintf(id, sizeof id, "bare-%lu", __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED));
    evhttp_add_header(headers, "Content-Type", "application/json");
    evhttp_add_header(headers, "X-Request-Id", id);
    evhttp_add_header(headers, "X-Content-Type-Options", "nosniff");
}

static void handle(struct evhttp_request *request, void *context) {
    (void)context;
    const char *path = evhttp_request_get_uri(request);
    struct evbuffer *body = evbuffer_new();
    if (strcmp(path, "/healthz") == 0 && evhttp_request_get_command(request) == EVHTTP_REQ_GET) {
        add_headers(request);
        evbuffer_add(body, "{\"status\":\"ok\"}\n", 16);
        evhttp_send_reply(request, 200, "OK", body);
    } else if (strncmp(path, "/v1/decode", 10) == 0 && evhttp_request_get_command(request) == EVHTTP_REQ_POST) {
        struct evbuffer *input = evhttp_request_get_input_buffer(request);
        evbuffer_drain(input, evbuffer_get_length(input));
        add_headers(request);
        evhttp_add_header(evhttp_request_get_output_headers(request), "Vary", "Accept-Encoding");
        evbuffer_add(body, reply, reply_length);
        evhttp_send_reply(request, 200, "OK", body);
    } else {
        evhttp_send_error(request, 404, NULL);
    }
    evbuffer_free(body);
}

static int port;

static void *loop(void *unused) {
    (void)unused;
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
    evhttp_set_gencb(http, handle, NULL);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct evconnlistener *listener = evconnlistener_new_bind(
        base, NULL, NULL, LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE, 1024,
        (struct sockaddr *)&address, sizeof address);
    if (listener == NULL || evhttp_bind_listener(http, listener) == NULL) {
        perror("bind");
        exit(1);
    }
    event_base_dispatch(base);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PORT REPLY_FILE [LOOPS]\n", argv[0]);
        return 2;
    }
    port = atoi(argv[1]);
    int loops = argc > 3 ? atoi(argv[3]) : 2;
    FILE *file = fopen(argv[2], "rb");
    if (file == NULL) {
        perror(argv[2]);
        return 1;
    }
    fseek(file, 0, SEEK_END);
    reply_length = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    reply = malloc(reply_length);
    if (fread(reply, 1, reply_length, file) != reply_length) return 1;
    fclose(file);
    evthread_use_pthreads();
    pthread_t threads[64];
    if (loops < 1 || loops > 64) return 2;
    for (int index = 0; index < loops; index++) pthread_create(&threads[index], NULL, loop, NULL);
    for (int index = 0; index < loops; index++) pthread_join(threads[index], NULL);
    return 0;
}
