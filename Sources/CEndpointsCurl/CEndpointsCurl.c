// Loads libcurl.so.4 with dlopen and calls it through the pointers dlsym finds; see the header.
#include "CEndpointsCurl.h"

#if defined(__linux__) || defined(__APPLE__) || defined(__unix__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// libcurl's own types, as far as these calls need them (curl.h).
typedef int64_t curl_off_t;
struct curl_blob {
    void *data;
    size_t len;
    unsigned int flags;
};
struct curl_version_info_data_prefix {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
    long ssl_version_num;
    const char *libz_version;
    const char *const *protocols;
};
struct curl_msg {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

static struct {
    int (*global_init)(long);
    struct curl_version_info_data_prefix *(*version_info)(int);
    const char *(*easy_strerror)(int);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    int (*easy_pause)(void *, int);
    int (*easy_send)(void *, const void *, size_t, size_t *);
    int (*easy_recv)(void *, void *, size_t, size_t *);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_setopt)(void *, int, ...);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, ep_waitfd *, unsigned int, int, int *);
    int (*multi_wakeup)(void *);
    struct curl_msg *(*multi_info_read)(void *, int *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = -1;
static const char *load_error = "libcurl was not loaded";
static struct curl_version_info_data_prefix *version_info;

// CURLVERSION_FIRST: the fields every libcurl has; CURL_GLOBAL_ALL.
#define EP_CURLVERSION_FIRST 0
#define EP_CURL_GLOBAL_ALL 3L
// 7.68.0: curl_multi_poll (7.66) and curl_multi_wakeup (7.68).
#define EP_MINIMUM_VERSION 0x074400

static void load(void) {
    // ENDPOINTS_LIBCURL names another libcurl to load (a build with HTTP/3, say), and nothing else.
    const char *chosen = getenv("ENDPOINTS_LIBCURL");
    const char *names[] = {"libcurl.so.4", "libcurl.4.dylib", "libcurl.dylib"};
    void *library = NULL;
    if (chosen && *chosen) {
        library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
            library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!library) {
        load_error = chosen && *chosen ? "the library ENDPOINTS_LIBCURL names could not be loaded"
                                       : "libcurl.so.4 could not be loaded";
        return;
    }
#define FIND(field, symbol)                                                                                    \
    do {                                                                                                      \
        *(void **)(&curl.field) = dlsym(library, symbol);                                                     \
        if (!curl.field) {                                                                                    \
            load_error = "libcurl lacks " symbol " (7.68 or later is needed)";                                \
            return;                                                                                           \
        }                                                                                                     \
    } while (0)
    FIND(global_init, "curl_global_init");
    FIND(version_info, "curl_version_info");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_reset, "curl_easy_reset");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_pause, "curl_easy_pause");
    FIND(easy_send, "curl_easy_send");
    FIND(easy_recv, "curl_easy_recv");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
    FIND(multi_init, "curl_multi_init");
    FIND(multi_cleanup, "curl_multi_cleanup");
    FIND(multi_setopt, "curl_multi_setopt");
    FIND(multi_add_handle, "curl_multi_add_handle");
    FIND(multi_remove_handle, "curl_multi_remove_handle");
    FIND(multi_perform, "curl_multi_perform");
    FIND(multi_poll, "curl_multi_poll");
    FIND(multi_wakeup, "curl_multi_wakeup");
    FIND(multi_info_read, "curl_multi_info_read");
#undef FIND
    version_info = curl.version_info(EP_CURLVERSION_FIRST);
    if (!version_info || version_info->version_num < EP_MINIMUM_VERSION) {
        load_error = "libcurl is older than 7.68";
        return;
    }
    // Foundation may have initialized it already in this process: a second call only counts up.
    if (curl.global_init(EP_CURL_GLOBAL_ALL) != 0) {
        load_error = "curl_global_init failed";
        return;
    }
    load_error = NULL;
    load_result = 0;
}

int ep_curl_load(void) {
    pthread_once(&load_once, load);
    return load_result;
}

const char *ep_curl_load_error(void) {
    pthread_once(&load_once, load);
    return load_error;
}

unsigned int ep_curl_version_num(void) { return version_info ? version_info->version_num : 0; }
const char *ep_curl_version(void) { return version_info ? version_info->version : ""; }
int ep_curl_features(void) { return version_info ? version_info->features : 0; }

int ep_curl_supports_protocol(const char *protocol) {
    if (!version_info || !version_info->protocols) return 0;
    for (const char *const *name = version_info->protocols; *name; name++) {
        if (strcmp(*name, protocol) == 0) return 1;
    }
    return 0;
}

const char *ep_curl_strerror(int code) { return curl.easy_strerror(code); }

// MARK: Easy handles

ep_curl *ep_easy_init(void) { return (ep_curl *)curl.easy_init(); }
void ep_easy_cleanup(ep_curl *handle) { curl.easy_cleanup(handle); }
void ep_easy_reset(ep_curl *handle) { curl.easy_reset(handle); }

int ep_easy_setopt_long(ep_curl *handle, int option, long value) { return curl.easy_setopt(handle, option, value); }

int ep_easy_setopt_off(ep_curl *handle, int option, int64_t value) {
    return curl.easy_setopt(handle, option, (curl_off_t)value);
}

int ep_easy_setopt_pointer(ep_curl *handle, int option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}

int ep_easy_setopt_data_callback(ep_curl *handle, int option, ep_data_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}

int ep_easy_setopt_seek_callback(ep_curl *handle, ep_seek_callback callback) {
    return curl.easy_setopt(handle, EP_CURLOPT_SEEKFUNCTION, callback);
}

int ep_easy_setopt_blob(ep_curl *handle, int option, const void *data, size_t length) {
    // CURL_BLOB_COPY: libcurl keeps a copy, so the caller's bytes need not outlive the call.
    struct curl_blob blob = {(void *)data, length, 1};
    return curl.easy_setopt(handle, option, &blob);
}

int ep_easy_getinfo_long(ep_curl *handle, int info, long *value) { return curl.easy_getinfo(handle, info, value); }

int ep_easy_getinfo_off(ep_curl *handle, int info, int64_t *value) {
    curl_off_t result = 0;
    int code = curl.easy_getinfo(handle, info, &result);
    *value = (int64_t)result;
    return code;
}

int ep_easy_getinfo_string(ep_curl *handle, int info, const char **value) {
    return curl.easy_getinfo(handle, info, value);
}

int ep_easy_getinfo_socket(ep_curl *handle, int info, int *value) { return curl.easy_getinfo(handle, info, value); }

int ep_easy_pause(ep_curl *handle, int bitmask) { return curl.easy_pause(handle, bitmask); }

int ep_easy_send(ep_curl *handle, const void *buffer, size_t length, size_t *sent) {
    return curl.easy_send(handle, buffer, length, sent);
}

int ep_easy_recv(ep_curl *handle, void *buffer, size_t length, size_t *received) {
    return curl.easy_recv(handle, buffer, length, received);
}

ep_slist *ep_slist_append(ep_slist *list, const char *line) { return (ep_slist *)curl.slist_append(list, line); }
void ep_slist_free_all(ep_slist *list) { curl.slist_free_all(list); }

// MARK: Multi handles

ep_curlm *ep_multi_init(void) { return (ep_curlm *)curl.multi_init(); }
int ep_multi_cleanup(ep_curlm *multi) { return curl.multi_cleanup(multi); }
int ep_multi_setopt_long(ep_curlm *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
int ep_multi_add_handle(ep_curlm *multi, ep_curl *handle) { return curl.multi_add_handle(multi, handle); }
int ep_multi_remove_handle(ep_curlm *multi, ep_curl *handle) { return curl.multi_remove_handle(multi, handle); }
int ep_multi_perform(ep_curlm *multi, int *running) { return curl.multi_perform(multi, running); }

int ep_multi_poll(ep_curlm *multi, ep_waitfd *extra, unsigned int count, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, extra, count, timeout_ms, ready);
}

int ep_multi_wakeup(ep_curlm *multi) { return curl.multi_wakeup(multi); }

int ep_multi_next_done(ep_curlm *multi, ep_curl **handle, int *result) {
    int queued = 0;
    struct curl_msg *message;
    while ((message = curl.multi_info_read(multi, &queued))) {
        if (message->msg != 1) continue;  // CURLMSG_DONE
        *handle = (ep_curl *)message->easy_handle;
        *result = message->data.result;
        return 1;
    }
    return 0;
}

#endif

// MARK: The loop's open sockets

#if defined(__linux__)
#include <errno.h>
#include <sys/epoll.h>

int ep_socket_set_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int ep_socket_set_watch(int set, int fd, int input, int output, int watched) {
    struct epoll_event event = {0};
    event.events = (input ? EPOLLIN : 0) | (output ? EPOLLOUT : 0);
    event.data.fd = fd;
    int operation = event.events == 0 ? EPOLL_CTL_DEL : watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (operation == EPOLL_CTL_DEL && !watched) return 0;
    return epoll_ctl(set, operation, fd, &event);
}

int ep_socket_set_ready(int set, int *fds, int count) {
    struct epoll_event events[64];
    int ready = epoll_wait(set, events, count < 64 ? count : 64, 0);
    for (int index = 0; index < ready; index++) fds[index] = events[index].data.fd;
    return ready;
}
#else
#include <errno.h>

int ep_socket_set_create(void) {
    errno = ENOSYS;
    return -1;
}
int ep_socket_set_watch(int set, int fd, int input, int output, int watched) {
    errno = ENOSYS;
    return -1;
}
int ep_socket_set_ready(int set, int *fds, int count) {
    errno = ENOSYS;
    return -1;
}
#endif
