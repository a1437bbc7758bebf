// The few parts of libcurl's ABI that Endpoints' libcurl transport uses, for a machine without
// curl's headers: libcurl is loaded with dlopen("libcurl.so.4") on first use, and every call goes
// through a pointer found with dlsym. Option, info and error numbers are libcurl's own, stable under
// soname 4 (see curl.h: CURLOPTTYPE_* + n, CURLINFO_* + n). What a given build supports is asked at
// run time (ep_curl_version_num, ep_curl_features), not assumed.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call:
// each argument type has a non-variadic wrapper here, which calls libcurl through its real variadic
// prototype with exactly a long, a curl_off_t or a pointer.
#ifndef CENDPOINTSCURL_H
#define CENDPOINTSCURL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An easy handle (CURL *), a multi handle (CURLM *), a header list (struct curl_slist *).
typedef struct ep_curl ep_curl;
typedef struct ep_curlm ep_curlm;
typedef struct ep_slist ep_slist;

/// A write, header or read callback: size_t (*)(char *, size_t, size_t, void *).
typedef size_t (*ep_data_callback)(char *buffer, size_t size, size_t count, void *context);
/// A seek callback: int (*)(void *, curl_off_t, int).
typedef int (*ep_seek_callback)(void *context, int64_t offset, int origin);

/// struct curl_waitfd, for curl_multi_poll's extra descriptors.
typedef struct ep_waitfd {
    int fd;
    short events;
    short revents;
} ep_waitfd;

// MARK: Numbers from curl.h (libcurl 7.68 or later)

enum {
    // CURLOPTTYPE_LONG + n
    EP_CURLOPT_VERBOSE = 41,
    EP_CURLOPT_NOBODY = 44,
    EP_CURLOPT_POST = 47,
    EP_CURLOPT_NOPROGRESS = 43,
    EP_CURLOPT_FOLLOWLOCATION = 52,
    EP_CURLOPT_SSL_VERIFYPEER = 64,
    EP_CURLOPT_HTTPGET = 80,
    EP_CURLOPT_SSL_VERIFYHOST = 81,
    EP_CURLOPT_HTTP_VERSION = 84,
    EP_CURLOPT_DNS_CACHE_TIMEOUT = 92,
    EP_CURLOPT_BUFFERSIZE = 98,
    EP_CURLOPT_NOSIGNAL = 99,
    EP_CURLOPT_TCP_NODELAY = 121,
    EP_CURLOPT_CONNECT_ONLY = 141,
    EP_CURLOPT_CONNECTTIMEOUT_MS = 156,
    EP_CURLOPT_HTTP_CONTENT_DECODING = 158,
    EP_CURLOPT_TCP_KEEPALIVE = 213,
    EP_CURLOPT_TCP_KEEPIDLE = 214,
    EP_CURLOPT_TCP_KEEPINTVL = 215,
    EP_CURLOPT_PATH_AS_IS = 234,
    EP_CURLOPT_PIPEWAIT = 237,
    EP_CURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    EP_CURLOPT_UPLOAD_BUFFERSIZE = 280,
    EP_CURLOPT_HTTP09_ALLOWED = 285,
    EP_CURLOPT_HTTPPROXYTUNNEL = 61,
    EP_CURLOPT_MAXAGE_CONN = 288,
    EP_CURLOPT_PROXYAUTH = 111,

    // CURLOPTTYPE_OBJECTPOINT (10000) + n: strings, lists, pointers
    EP_CURLOPT_URL = 10002,
    EP_CURLOPT_PROXY = 10004,
    EP_CURLOPT_ERRORBUFFER = 10010,
    EP_CURLOPT_POSTFIELDS = 10015,
    EP_CURLOPT_USERAGENT = 10018,
    EP_CURLOPT_HTTPHEADER = 10023,
    EP_CURLOPT_SSLCERT = 10025,
    EP_CURLOPT_KEYPASSWD = 10026,
    EP_CURLOPT_CUSTOMREQUEST = 10036,
    EP_CURLOPT_CAINFO = 10065,
    EP_CURLOPT_SSLCERTTYPE = 10086,
    EP_CURLOPT_SSLKEY = 10087,
    EP_CURLOPT_SSLKEYTYPE = 10088,
    EP_CURLOPT_CAPATH = 10097,
    EP_CURLOPT_ACCEPT_ENCODING = 10102,
    EP_CURLOPT_PRIVATE = 10103,
    EP_CURLOPT_PROXYUSERNAME = 10175,
    EP_CURLOPT_PROXYPASSWORD = 10176,
    EP_CURLOPT_NOPROXY = 10177,
    EP_CURLOPT_PINNEDPUBLICKEY = 10230,
    EP_CURLOPT_PROTOCOLS_STR = 10318,
    EP_CURLOPT_REDIR_PROTOCOLS_STR = 10319,
    // CURLOPTTYPE_CBPOINT: the context pointer of each callback
    EP_CURLOPT_WRITEDATA = 10001,
    EP_CURLOPT_READDATA = 10009,
    EP_CURLOPT_HEADERDATA = 10029,
    EP_CURLOPT_SEEKDATA = 10168,

    // CURLOPTTYPE_FUNCTIONPOINT (20000) + n
    EP_CURLOPT_WRITEFUNCTION = 20011,
    EP_CURLOPT_READFUNCTION = 20012,
    EP_CURLOPT_HEADERFUNCTION = 20079,
    EP_CURLOPT_SEEKFUNCTION = 20167,

    // CURLOPTTYPE_OFF_T (30000) + n
    EP_CURLOPT_INFILESIZE_LARGE = 30115,
    EP_CURLOPT_POSTFIELDSIZE_LARGE = 30120,

    // CURLOPTTYPE_BLOB (40000) + n (7.71 and later)
    EP_CURLOPT_SSLCERT_BLOB = 40291,
    EP_CURLOPT_SSLKEY_BLOB = 40292,
    EP_CURLOPT_CAINFO_BLOB = 40309,
};

enum {
    EP_CURLMOPT_PIPELINING = 3,
    EP_CURLMOPT_MAXCONNECTS = 6,
    EP_CURLMOPT_MAX_HOST_CONNECTIONS = 7,
    EP_CURLMOPT_MAX_TOTAL_CONNECTIONS = 13,
    EP_CURLMOPT_MAX_CONCURRENT_STREAMS = 16,
};

enum {
    // CURLINFO_STRING (0x100000) + n
    EP_CURLINFO_EFFECTIVE_URL = 0x100000 + 1,
    EP_CURLINFO_PRIMARY_IP = 0x100000 + 32,
    EP_CURLINFO_CAINFO = 0x100000 + 61,
    // CURLINFO_LONG (0x200000) + n
    EP_CURLINFO_RESPONSE_CODE = 0x200000 + 2,
    EP_CURLINFO_HEADER_SIZE = 0x200000 + 11,
    EP_CURLINFO_REQUEST_SIZE = 0x200000 + 12,
    EP_CURLINFO_SSL_VERIFYRESULT = 0x200000 + 13,
    EP_CURLINFO_PROXYAUTH_AVAIL = 0x200000 + 24,
    EP_CURLINFO_OS_ERRNO = 0x200000 + 25,
    EP_CURLINFO_NUM_CONNECTS = 0x200000 + 26,
    EP_CURLINFO_PRIMARY_PORT = 0x200000 + 40,
    EP_CURLINFO_HTTP_VERSION = 0x200000 + 46,
    // CURLINFO_SOCKET (0x500000) + n
    EP_CURLINFO_ACTIVESOCKET = 0x500000 + 44,
    // CURLINFO_OFF_T (0x600000) + n
    EP_CURLINFO_SIZE_UPLOAD_T = 0x600000 + 7,
    EP_CURLINFO_SIZE_DOWNLOAD_T = 0x600000 + 8,
    EP_CURLINFO_CONTENT_LENGTH_DOWNLOAD_T = 0x600000 + 15,
    EP_CURLINFO_TOTAL_TIME_T = 0x600000 + 50,
    EP_CURLINFO_NAMELOOKUP_TIME_T = 0x600000 + 51,
    EP_CURLINFO_CONNECT_TIME_T = 0x600000 + 52,
    EP_CURLINFO_PRETRANSFER_TIME_T = 0x600000 + 53,
    EP_CURLINFO_STARTTRANSFER_TIME_T = 0x600000 + 54,
    EP_CURLINFO_APPCONNECT_TIME_T = 0x600000 + 56,
};

enum {
    EP_CURLE_OK = 0,
    EP_CURLE_UNSUPPORTED_PROTOCOL = 1,
    EP_CURLE_URL_MALFORMAT = 3,
    EP_CURLE_COULDNT_RESOLVE_PROXY = 5,
    EP_CURLE_COULDNT_RESOLVE_HOST = 6,
    EP_CURLE_COULDNT_CONNECT = 7,
    EP_CURLE_WEIRD_SERVER_REPLY = 8,
    EP_CURLE_HTTP2 = 16,
    EP_CURLE_PARTIAL_FILE = 18,
    EP_CURLE_WRITE_ERROR = 23,
    EP_CURLE_UPLOAD_FAILED = 25,
    EP_CURLE_READ_ERROR = 26,
    EP_CURLE_OUT_OF_MEMORY = 27,
    EP_CURLE_OPERATION_TIMEDOUT = 28,
    EP_CURLE_SSL_CONNECT_ERROR = 35,
    EP_CURLE_ABORTED_BY_CALLBACK = 42,
    EP_CURLE_TOO_MANY_REDIRECTS = 47,
    EP_CURLE_GOT_NOTHING = 52,
    EP_CURLE_SEND_ERROR = 55,
    EP_CURLE_RECV_ERROR = 56,
    EP_CURLE_SSL_CERTPROBLEM = 58,
    EP_CURLE_SSL_CIPHER = 59,
    EP_CURLE_PEER_FAILED_VERIFICATION = 60,
    EP_CURLE_BAD_CONTENT_ENCODING = 61,
    EP_CURLE_FILESIZE_EXCEEDED = 63,
    EP_CURLE_SEND_FAIL_REWIND = 65,
    EP_CURLE_SSL_CACERT_BADFILE = 77,
    EP_CURLE_AGAIN = 81,
    EP_CURLE_SSL_CRL_BADFILE = 82,
    EP_CURLE_SSL_ISSUER_ERROR = 83,
    EP_CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    EP_CURLE_SSL_INVALIDCERTSTATUS = 91,
    EP_CURLE_HTTP2_STREAM = 92,
    EP_CURLE_PROXY = 97,
    EP_CURLE_SSL_CLIENTCERT = 98,
};

enum {
    EP_CURL_HTTP_VERSION_NONE = 0,
    EP_CURL_HTTP_VERSION_1_0 = 1,
    EP_CURL_HTTP_VERSION_1_1 = 2,
    EP_CURL_HTTP_VERSION_2_0 = 3,
    EP_CURL_HTTP_VERSION_2TLS = 4,
    EP_CURL_HTTP_VERSION_3 = 30,

    EP_CURLPIPE_MULTIPLEX = 2,

    // CURLAUTH_* bits (CURLOPT_PROXYAUTH, CURLINFO_PROXYAUTH_AVAIL)
    EP_CURLAUTH_BASIC = 1 << 0,
    EP_CURLAUTH_DIGEST = 1 << 1,

    EP_CURLPAUSE_RECV = 1 << 0,
    EP_CURLPAUSE_SEND = 1 << 2,
    EP_CURLPAUSE_CONT = 0,

    EP_CURL_SEEKFUNC_OK = 0,
    EP_CURL_SEEKFUNC_FAIL = 1,
    EP_CURL_SEEKFUNC_CANTSEEK = 2,

    EP_CURL_WAIT_POLLIN = 0x0001,
    EP_CURL_WAIT_POLLOUT = 0x0004,

    // curl_version_info_data.features
    EP_CURL_VERSION_SSL = 1 << 2,
    EP_CURL_VERSION_LIBZ = 1 << 3,
    EP_CURL_VERSION_HTTP2 = 1 << 16,
    EP_CURL_VERSION_HTTPS_PROXY = 1 << 21,
    EP_CURL_VERSION_BROTLI = 1 << 23,
    EP_CURL_VERSION_ZSTD = 1 << 26,
    EP_CURL_VERSION_THREADSAFE = 1 << 30,
};

/// What a write or read callback returns to pause its transfer, or a read callback to abort it.
static const size_t EP_CURL_WRITEFUNC_PAUSE = 0x10000001;
static const size_t EP_CURL_READFUNC_PAUSE = 0x10000001;
static const size_t EP_CURL_READFUNC_ABORT = 0x10000000;

// MARK: Loading

/// Loads libcurl (once; later calls return the first outcome): 0 when it is loaded, has every
/// function used here and is 7.68 or later, otherwise non-zero with ep_curl_load_error() saying why.
/// Calls curl_global_init once; never curl_global_cleanup (Foundation shares the library).
int ep_curl_load(void);
/// Why ep_curl_load failed, or NULL.
const char *ep_curl_load_error(void);
/// The loaded library's version: its number (0x075801 for 7.88.1), text, features and whether it
/// supports `protocol` (e.g. "https"). Only after a successful ep_curl_load.
unsigned int ep_curl_version_num(void);
const char *ep_curl_version(void);
int ep_curl_features(void);
int ep_curl_supports_protocol(const char *protocol);
/// The text of CURLcode `code`.
const char *ep_curl_strerror(int code);

// MARK: Easy handles

ep_curl *ep_easy_init(void);
void ep_easy_cleanup(ep_curl *handle);
void ep_easy_reset(ep_curl *handle);
int ep_easy_setopt_long(ep_curl *handle, int option, long value);
int ep_easy_setopt_off(ep_curl *handle, int option, int64_t value);
int ep_easy_setopt_pointer(ep_curl *handle, int option, const void *value);
int ep_easy_setopt_data_callback(ep_curl *handle, int option, ep_data_callback callback);
int ep_easy_setopt_seek_callback(ep_curl *handle, ep_seek_callback callback);
/// Sets a blob option (struct curl_blob, copied by libcurl).
int ep_easy_setopt_blob(ep_curl *handle, int option, const void *data, size_t length);
int ep_easy_getinfo_long(ep_curl *handle, int info, long *value);
int ep_easy_getinfo_off(ep_curl *handle, int info, int64_t *value);
int ep_easy_getinfo_string(ep_curl *handle, int info, const char **value);
int ep_easy_getinfo_socket(ep_curl *handle, int info, int *value);
int ep_easy_pause(ep_curl *handle, int bitmask);
int ep_easy_send(ep_curl *handle, const void *buffer, size_t length, size_t *sent);
int ep_easy_recv(ep_curl *handle, void *buffer, size_t length, size_t *received);

ep_slist *ep_slist_append(ep_slist *list, const char *line);
void ep_slist_free_all(ep_slist *list);

// MARK: Multi handles

ep_curlm *ep_multi_init(void);
int ep_multi_cleanup(ep_curlm *multi);
int ep_multi_setopt_long(ep_curlm *multi, int option, long value);
int ep_multi_add_handle(ep_curlm *multi, ep_curl *handle);
int ep_multi_remove_handle(ep_curlm *multi, ep_curl *handle);
int ep_multi_perform(ep_curlm *multi, int *running);
int ep_multi_poll(ep_curlm *multi, ep_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
int ep_multi_wakeup(ep_curlm *multi);
/// The next finished transfer: 1 with `*handle` and `*result` (a CURLcode) set, 0 when none is left.
int ep_multi_next_done(ep_curlm *multi, ep_curl **handle, int *result);

// MARK: Decoding bodies (zlib, brotli and zstd, each loaded with dlopen like libcurl)

/// A decoder of one content coding.
typedef struct ep_decoder ep_decoder;

enum {
    /// `gzip` (and `x-gzip`): one or more members, one after another.
    EP_CODING_GZIP = 1,
    /// `deflate`: a zlib stream, or a raw deflate stream as some servers send.
    EP_CODING_DEFLATE = 2,
    /// `br`.
    EP_CODING_BROTLI = 3,
    /// `zstd`, with a window of at most 8 MB.
    EP_CODING_ZSTD = 4,
};

enum {
    /// ep_decode: the stream ended (the rest of the input is not part of it).
    EP_DECODE_END = 1,
    /// ep_decode: more input or room is needed.
    EP_DECODE_OK = 0,
    /// ep_decode: the input is not valid for the coding.
    EP_DECODE_ERROR = -1,
};

/// 1 when the library for `coding` (an EP_CODING_ value) loads, 0 when not.
int ep_decoder_available(int coding);
/// A decoder for `coding`; NULL when its library cannot be loaded or memory is short.
ep_decoder *ep_decoder_new(int coding);
/// Decodes from `input` into `output`: how much of each was used goes to `consumed` and
/// `produced`. Returns EP_DECODE_OK, EP_DECODE_END or EP_DECODE_ERROR. A decoder may take all of
/// `input` and hold more output than fits: call again, with no input (NULL, 0), while `output` fills.
int ep_decode(ep_decoder *decoder, const void *input, size_t input_length, size_t *consumed, void *output,
              size_t output_length, size_t *produced);
/// 1 when `decoder` is between streams: it has taken no input, or the last stream (a gzip member,
/// a zstd frame) it took ended and no byte of another came since; 0 while one is under way, as
/// when a body ends inside it. (A deflate or brotli stream that ended made ep_decode return
/// EP_DECODE_END.)
int ep_decoder_between_streams(const ep_decoder *decoder);
void ep_decoder_free(ep_decoder *decoder);

// MARK: The loop's open sockets (an epoll set; Linux only, -1 and errno ENOSYS elsewhere)

/// A new epoll set (close-on-exec): its descriptor, or -1 with errno set.
int ep_socket_set_create(void);
/// Makes `set` wait on `fd` for input and/or output; with neither, takes `fd` out of it.
/// `watched`: whether `fd` is in the set now. 0, or -1 with errno set.
int ep_socket_set_watch(int set, int fd, int input, int output, int watched);
/// Puts up to `count` descriptors of `set` that are ready now into `fds`, without waiting;
/// returns how many (or -1 with errno set).
int ep_socket_set_ready(int set, int *fds, int count);

#ifdef __cplusplus
}
#endif

#endif
