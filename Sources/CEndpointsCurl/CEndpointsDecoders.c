// Decodes response bodies (gzip and deflate with zlib, brotli, zstd), each library loaded with dlopen
// on first use as libcurl is; see the header.
#include "CEndpointsCurl.h"

#if defined(__linux__) || defined(__APPLE__) || defined(__unix__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

// The most bytes of a "deflate" body the zlib inflater may take before it refuses them for the
// body to be read as raw deflate instead.
#define EP_DEFLATE_PROBE 256

struct ep_decoder {
    int coding;
    int started;  // whether any output came, so a deflate stream is known to be zlib-wrapped
    int member_ended;  // a gzip member ended: another may follow (RFC 1952 §2.2)
    int open;  // brotli and zstd: a stream (a frame) took input and has not ended
    z_stream stream;
    void *state;  // brotli's or zstd's
    // A deflate body not yet known to be zlib-wrapped: the bytes the zlib inflater took so far
    // (earlier calls' input), replayed into a raw inflater if it refuses what follows, so that a
    // body reads the same however its bytes are split.
    unsigned char probe[EP_DEFLATE_PROBE];
    size_t probe_length;
    int raw;  // read as raw deflate: the probe's bytes go in first, up to `replayed`
    size_t replayed;
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

// Inflates what `input` holds into `output`: how much of each it used, and zlib's code.
static int inflate_some(z_stream *stream, const void *input, size_t input_length, void *output,
                        size_t output_length, size_t *used, size_t *made) {
    stream->next_in = (void *)input;
    stream->avail_in = (unsigned int)(input_length > 0x7fffffff ? 0x7fffffff : input_length);
    stream->next_out = output;
    stream->avail_out = (unsigned int)(output_length > 0x7fffffff ? 0x7fffffff : output_length);
    size_t in_before = stream->avail_in, out_before = stream->avail_out;
    int code = zlib.inflate(stream, EP_Z_NO_FLUSH);
    *used = in_before - stream->avail_in;
    *made = out_before - stream->avail_out;
    return code;
}

static int inflate_zlib(ep_decoder *decoder, const void *input, size_t input_length, size_t *consumed,
                        void *output, size_t output_length, size_t *produced) {
    z_stream *stream = &decoder->stream;
    *consumed = 0;
    *produced = 0;
    if (decoder->member_ended) {
        // A gzip body may be several members, one after another, as `cat a.gz b.gz` makes them:
        // another member starts with its magic (1f 8b), checked by inflate; anything else (zero
        // padding, say) ends the body and is dropped.
        if (input_length == 0) return EP_DECODE_OK;
        if (*(const unsigned char *)input != 0x1f) return EP_DECODE_END;
        if (zlib.reset(stream) != EP_Z_OK) return EP_DECODE_ERROR;
        decoder->member_ended = 0;
    }
    size_t used = 0, made = 0;
    if (decoder->raw && decoder->replayed < decoder->probe_length) {
        // Read as raw deflate: what the zlib inflater took in earlier calls goes in first.
        int code = inflate_some(stream, decoder->probe + decoder->replayed,
                                decoder->probe_length - decoder->replayed, output, output_length, &used, &made);
        decoder->replayed += used;
        *produced = made;
        if (code == EP_Z_STREAM_END) return EP_DECODE_END;
        if (code != EP_Z_OK && code != EP_Z_BUF_ERROR) return EP_DECODE_ERROR;
        if (decoder->replayed < decoder->probe_length || made == output_length) return EP_DECODE_OK;
        output = (unsigned char *)output + made;
        output_length -= made;
    }
    int code = inflate_some(stream, input, input_length, output, output_length, &used, &made);
    if (decoder->coding == EP_CODING_DEFLATE && !decoder->started) {
        if (code != EP_Z_OK && code != EP_Z_STREAM_END && code != EP_Z_BUF_ERROR) {
            // Not a zlib stream: a raw deflate stream, as some servers send for "deflate", when
            // the zlib inflater refused it within its first EP_DEFLATE_PROBE bytes (the earlier
            // ones are in the probe, this call's input is read again from its start).
            if (stream->total_in > EP_DEFLATE_PROBE) return EP_DECODE_ERROR;
            zlib.end(stream);
            if (!begin(decoder, -15)) return EP_DECODE_ERROR;
            decoder->started = 1;
            decoder->raw = 1;
            decoder->replayed = 0;
            return inflate_zlib(decoder, input, input_length, consumed, output, output_length, produced);
        }
        if (made == 0 && decoder->probe_length + used <= EP_DEFLATE_PROBE) {
            // Still unknown: kept, to be read again if the zlib inflater refuses what follows.
            memcpy(decoder->probe + decoder->probe_length, input, used);
            decoder->probe_length += used;
        }
    }
    *consumed = used;
    *produced += made;
    if (made > 0) decoder->started = 1;
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
        if (*consumed > 0) decoder->open = 1;
        if (result == EP_BROTLI_SUCCESS) decoder->open = 0;
        if (result == EP_BROTLI_ERROR) return EP_DECODE_ERROR;
        return result == EP_BROTLI_SUCCESS ? EP_DECODE_END : EP_DECODE_OK;
    }
    case EP_CODING_ZSTD: {
        zstd_in in = {input, input_length, 0};
        zstd_out out = {output, output_length, 0};
        size_t result = zstd.decompress(decoder->state, &out, &in);
        *consumed = in.pos;
        *produced = out.pos;
        // 0: a frame was decoded and flushed whole; another may follow, as a zstd body is one or
        // more frames.
        if (result == 0) {
            decoder->open = 0;
        } else if (in.pos > 0) {
            decoder->open = 1;
        }
        return zstd.is_error(result) ? EP_DECODE_ERROR : EP_DECODE_OK;
    }
    default: return inflate_zlib(decoder, input, input_length, consumed, output, output_length, produced);
    }
}

int ep_decoder_between_streams(const ep_decoder *decoder) {
    switch (decoder->coding) {
    case EP_CODING_BROTLI:
    case EP_CODING_ZSTD: return !decoder->open;
    // zlib counts what the stream took since it began (or since the last member, on a reset).
    default: return decoder->member_ended || decoder->stream.total_in == 0;
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
