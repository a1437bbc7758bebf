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

// MARK: zlib

// zlib's z_stream (zlib.h), whose layout is its ABI since 1.0.
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} z_stream;

static struct {
    const char *(*version)(void);
    int (*init2)(z_stream *, int, const char *, int);
    int (*inflate)(z_stream *, int);
    int (*reset)(z_stream *);
    int (*end)(z_stream *);
} zlib;

// MARK: brotli and zstd

// BrotliDecoderResult (brotli/decode.h): ERROR 0, SUCCESS 1, NEEDS_MORE_INPUT 2, NEEDS_MORE_OUTPUT 3.
#define EP_BROTLI_ERROR 0
#define EP_BROTLI_SUCCESS 1

static struct {
    void *(*create)(void *, void *, void *);
    int (*decompress)(void *, size_t *, const unsigned char **, size_t *, unsigned char **, size_t *);
    void (*destroy)(void *);
} brotli;

// ZSTD_inBuffer and ZSTD_outBuffer (zstd.h), stable since 1.0.
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} zstd_in;
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} zstd_out;
// ZSTD_d_windowLogMax; 23: the 8 MB window RFC 9659 bounds a zstd content coding's at.
#define EP_ZSTD_WINDOW_LOG_MAX_PARAMETER 100
#define EP_ZSTD_WINDOW_LOG_MAX 23

static struct {
    void *(*create)(void);
    size_t (*free)(void *);
    size_t (*set_parameter)(void *, int, int);
    size_t (*decompress)(void *, zstd_out *, zstd_in *);
    unsigned (*is_error)(size_t);
} zstd;

static pthread_once_t codecs_once = PTHREAD_ONCE_INIT;
static int zlib_loaded = 0, brotli_loaded = 0, zstd_loaded = 0;

static void *open_first(const char *const *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library) return library;
    }
    return NULL;
}

static void load_codecs(void) {
    const char *zlib_names[] = {"libz.so.1", "libz.1.dylib"};
    void *library = open_first(zlib_names, 2);
    if (library) {
        *(void **)(&zlib.version) = dlsym(library, "zlibVersion");
        *(void **)(&zlib.init2) = dlsym(library, "inflateInit2_");
        *(void **)(&zlib.inflate) = dlsym(library, "inflate");
        *(void **)(&zlib.reset) = dlsym(library, "inflateReset");
        *(void **)(&zlib.end) = dlsym(library, "inflateEnd");
        zlib_loaded = zlib.version && zlib.init2 && zlib.inflate && zlib.reset && zlib.end;
    }
    const char *brotli_names[] = {"libbrotlidec.so.1", "libbrotlidec.1.dylib"};
    library = open_first(brotli_names, 2);
    if (library) {
        *(void **)(&brotli.create) = dlsym(library, "BrotliDecoderCreateInstance");
        *(void **)(&brotli.decompress) = dlsym(library, "BrotliDecoderDecompressStream");
        *(void **)(&brotli.destroy) = dlsym(library, "BrotliDecoderDestroyInstance");
        brotli_loaded = brotli.create && brotli.decompress && brotli.destroy;
    }
    const char *zstd_names[] = {"libzstd.so.1", "libzstd.1.dylib"};
    library = open_first(zstd_names, 2);
    if (library) {
        *(void **)(&zstd.create) = dlsym(library, "ZSTD_createDCtx");
        *(void **)(&zstd.free) = dlsym(library, "ZSTD_freeDCtx");
        *(void **)(&zstd.set_parameter) = dlsym(library, "ZSTD_DCtx_setParameter");
        *(void **)(&zstd.decompress) = dlsym(library, "ZSTD_decompressStream");
        *(void **)(&zstd.is_error) = dlsym(library, "ZSTD_isError");
        zstd_loaded = zstd.create && zstd.free && zstd.set_parameter && zstd.decompress && zstd.is_error;
    }
}

int ep_decoder_available(int coding) {
    pthread_once(&codecs_once, load_codecs);
    switch (coding) {
    case EP_CODING_GZIP:
    case EP_CODING_DEFLATE: return zlib_loaded;
    case EP_CODING_BROTLI: return brotli_loaded;
    case EP_CODING_ZSTD: return zstd_loaded;
    default: return 0;
    }
}

struct ep_decoder {
    int coding;
    int started;  // whether any output came, so a deflate stream is known to be zlib-wrapped
    int member_ended;  // a gzip member ended: another may follow (RFC 1952 §2.2)
    z_stream stream;
    void *state;  // brotli's or zstd's
};

// Z_OK, Z_STREAM_END, Z_BUF_ERROR, Z_NO_FLUSH
#define EP_Z_OK 0
#define EP_Z_STREAM_END 1
#define EP_Z_BUF_ERROR (-5)
#define EP_Z_NO_FLUSH 0

static int begin(ep_decoder *decoder, int window_bits) {
    memset(&decoder->stream, 0, sizeof decoder->stream);
    return zlib.init2(&decoder->stream, window_bits, zlib.version(), (int)sizeof(z_stream)) == EP_Z_OK;
}

ep_decoder *ep_decoder_new(int coding) {
    if (!ep_decoder_available(coding)) return NULL;
    ep_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->coding = coding;
    int ready = 0;
    switch (coding) {
    case EP_CODING_GZIP:
    case EP_CODING_DEFLATE:
        // 16 + 15: a gzip wrapper; 15: a zlib wrapper (tried first for deflate, then raw).
        ready = begin(decoder, coding == EP_CODING_GZIP ? 16 + 15 : 15);
        break;
    case EP_CODING_BROTLI:
        decoder->state = brotli.create(NULL, NULL, NULL);
        ready = decoder->state != NULL;
        break;
    case EP_CODING_ZSTD:
        decoder->state = zstd.create();
        ready = decoder->state != NULL &&
                !zstd.is_error(zstd.set_parameter(decoder->state, EP_ZSTD_WINDOW_LOG_MAX_PARAMETER,
                                                  EP_ZSTD_WINDOW_LOG_MAX));
        if (!ready && decoder->state) zstd.free(decoder->state);
        break;
    }
    if (!ready) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

static int inflate_zlib(ep_decoder *decoder, const void *input, size_t input_length, size_t *consumed,
                        void *output, size_t output_length, size_t *produced) {
    z_stream *stream = &decoder->stream;
    if (decoder->member_ended) {
        // A gzip body may be several members, one after another, as `cat a.gz b.gz` makes them:
        // another member starts with its magic (1f 8b), checked by inflate; anything else (zero
        // padding, say) ends the body and is dropped.
        *consumed = 0;
        *produced = 0;
        if (input_length == 0) return EP_DECODE_OK;
        if (*(const unsigned char *)input != 0x1f) return EP_DECODE_END;
        if (zlib.reset(stream) != EP_Z_OK) return EP_DECODE_ERROR;
        decoder->member_ended = 0;
    }
    stream->next_in = input;
    stream->avail_in = (unsigned int)(input_length > 0x7fffffff ? 0x7fffffff : input_length);
    stream->next_out = output;
    stream->avail_out = (unsigned int)(output_length > 0x7fffffff ? 0x7fffffff : output_length);
    size_t in_before = stream->avail_in, out_before = stream->avail_out;
    int code = zlib.inflate(stream, EP_Z_NO_FLUSH);
    if (code != EP_Z_OK && code != EP_Z_STREAM_END && code != EP_Z_BUF_ERROR &&
        decoder->coding == EP_CODING_DEFLATE && !decoder->started && stream->total_in <= in_before) {
        // Not a zlib stream: a raw deflate stream, as some servers send for "deflate".
        zlib.end(stream);
        if (!begin(decoder, -15)) return EP_DECODE_ERROR;
        decoder->started = 1;
        stream->next_in = input;
        stream->avail_in = (unsigned int)in_before;
        stream->next_out = output;
        stream->avail_out = (unsigned int)out_before;
        code = zlib.inflate(stream, EP_Z_NO_FLUSH);
    }
    *consumed = in_before - stream->avail_in;
    *produced = out_before - stream->avail_out;
    if (*produced > 0) decoder->started = 1;
    if (code == EP_Z_STREAM_END && decoder->coding == EP_CODING_GZIP) {
        decoder->member_ended = 1;
        return EP_DECODE_OK;
    }
    if (code == EP_Z_STREAM_END) return EP_DECODE_END;
    if (code == EP_Z_OK || code == EP_Z_BUF_ERROR) return EP_DECODE_OK;
    return EP_DECODE_ERROR;
}

int ep_decode(ep_decoder *decoder, const void *input, size_t input_length, size_t *consumed, void *output,
              size_t output_length, size_t *produced) {
    // No input (the decoder only hands over what it holds): libraries want a pointer all the same.
    static const unsigned char nothing = 0;
    if (!input) input = &nothing;
    switch (decoder->coding) {
    case EP_CODING_BROTLI: {
        size_t available_in = input_length, available_out = output_length;
        const unsigned char *next_in = input;
        unsigned char *next_out = output;
        int result = brotli.decompress(decoder->state, &available_in, &next_in, &available_out, &next_out, NULL);
        *consumed = input_length - available_in;
        *produced = output_length - available_out;
        if (result == EP_BROTLI_ERROR) return EP_DECODE_ERROR;
        return result == EP_BROTLI_SUCCESS ? EP_DECODE_END : EP_DECODE_OK;
    }
    case EP_CODING_ZSTD: {
        zstd_in in = {input, input_length, 0};
        zstd_out out = {output, output_length, 0};
        size_t result = zstd.decompress(decoder->state, &out, &in);
        *consumed = in.pos;
        *produced = out.pos;
        // A frame that ended (0) may be followed by another: a zstd body is one or more frames.
        return zstd.is_error(result) ? EP_DECODE_ERROR : EP_DECODE_OK;
    }
    default: return inflate_zlib(decoder, input, input_length, consumed, output, output_length, produced);
    }
}

void ep_decoder_free(ep_decoder *decoder) {
    if (!decoder) return;
    switch (decoder->coding) {
    case EP_CODING_BROTLI: brotli.destroy(decoder->state); break;
    case EP_CODING_ZSTD: zstd.free(decoder->state); break;
    default: zlib.end(&decoder->stream); break;
    }
    free(decoder);
}

#endif
