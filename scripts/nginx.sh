#!/usr/bin/env bash
# nginx on loopback for the tests and the benchmark: the one place that installs nginx, picks its
# ports and starts and stops it.
#
#   scripts/nginx.sh run CMD ARGS…     the TLS test servers below: start, run CMD with the NGINX_*
#                                      variables set, stop, exit with CMD's status
#   scripts/nginx.sh install [PKG…]    install nginx, and the named Debian packages, when missing
#   scripts/nginx.sh free-ports N      print N distinct free loopback ports
#
#   e.g.  scripts/nginx.sh run swift test --filter "CurlServerTrustTests|CurlClientCertificateTests"
#
# Sourced (`source scripts/nginx.sh`), it defines the same as functions and runs nothing, for a
# script that serves a configuration of its own (scripts/bench-nginx.sh):
#
#   nginx_install [PKG…]                as `install`
#   nginx_free_ports N                  as `free-ports`
#   nginx_start DIR N WRITE_CONFIG      picks N free ports into the array NGINX_PORTS, calls
#                                       WRITE_CONFIG (a function that writes DIR/nginx.conf, listening
#                                       on 127.0.0.1:${NGINX_PORTS[i]}), starts nginx in the
#                                       foreground of a child (pid in NGINX_PID, log DIR/error.log)
#                                       and returns once every port accepts; when nginx cannot bind a
#                                       port (taken meanwhile) it picks new ones and tries again
#   nginx_stop                          stops it (TERM, then KILL after 5 s) and waits for it
#   nginx_end_process PID               the same for another server this script's caller started
#
# nginx does not listen on port 0, so a port is chosen by binding port 0 and releasing it.
#
# `run` makes its certificates anew with openssl in a temporary folder, removed afterwards:
#
#   - a CA, and a server certificate it signed for 127.0.0.1 and localhost (an RSA key);
#   - with the same key and CA: one that expired in 2020, one valid only from 2099, one for
#     another host (other.invalid);
#   - a self-signed certificate for 127.0.0.1 (a key of its own);
#   - a client CA and a client certificate with its key, also as PKCS#12 with a random password;
#   - an unrelated key (for a pin that matches nothing), and the raw public keys an Apple SecKey
#     exports (PKCS#1 RSAPublicKey, X9.63 points) beside OpenSSL's pins of them.
#
# nginx runs as the current user, one server per port: HTTPS with HTTP/2 (TLS 1.2 and 1.3) serving
# /small.json and /large.bin (8 MiB); the same presenting the expired, not-yet-valid, wrong-host
# and self-signed certificates; three requiring a client certificate of the client CA (as nginx
# does by default: a request without one gets 400; with OpenSSL refusing the handshake; the same
# over TLS 1.2 only); and plain HTTP. Every request is logged to one access log, a line each:
# server port, connection number, request number on that connection, protocol, TLS version,
# method, URI, status, client verification.
#
# Variables CMD gets (paths are absolute):
#   NGINX_HTTPS_PORT, NGINX_EXPIRED_PORT, NGINX_NOT_YET_VALID_PORT, NGINX_WRONG_HOST_PORT,
#   NGINX_SELF_SIGNED_PORT, NGINX_CLIENT_CERT_PORT, NGINX_STRICT_CLIENT_CERT_PORT,
#   NGINX_TLS12_CLIENT_CERT_PORT, NGINX_HTTP_PORT  the servers, on 127.0.0.1
#   NGINX_CA, NGINX_CLIENT_CA                       the CA of the servers; the CA of the client certificate
#   NGINX_CLIENT_CERT, NGINX_CLIENT_KEY             the client certificate and its key (PEM)
#   NGINX_CLIENT_P12, NGINX_CLIENT_P12_PASSWORD     the same as PKCS#12, and its password
#   NGINX_SERVER_PIN, NGINX_OTHER_PIN               base64 SHA-256 of the SPKI of the server's key, of an unrelated key
#   NGINX_ROOT                                      the folder nginx serves
#   NGINX_ACCESS_LOG                                the access log
#   NGINX_KEYS                                      NAME.key (PEM), NAME.raw (the public key as a SecKey
#                                                   exports it), NAME.pin, for rsa2048, p256, p384, p521

nginx_log() { echo "nginx.sh: $*" >&2; }

nginx_binary() {
    command -v nginx 2>/dev/null && return
    local candidate
    for candidate in /usr/sbin/nginx /usr/local/sbin/nginx; do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    return 1
}

nginx_install() {
    local missing=() package sudo=()
    nginx_binary >/dev/null || missing+=(nginx)
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    nginx_log "installing ${missing[*]} with apt-get"
    # An install from a stale or empty package list fails: update it then, and only then.
    if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >&2; then
        "${sudo[@]}" apt-get update -q >&2
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
            "${missing[@]}" >&2
    fi
    nginx_binary >/dev/null || { nginx_log "nginx is not installed"; return 1; }
}

# $1 distinct free loopback ports, chosen by the kernel (all bound at once, then released).
nginx_free_ports() {
    python3 -c 'import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))' "$1"
}

nginx_start() {
    local dir="$1" count="$2" write_config="$3" nginx attempt port ready
    nginx="$(nginx_binary)"
    mkdir -p "$dir/temp"
    for attempt in 1 2 3 4 5; do
        read -r -a NGINX_PORTS <<<"$(nginx_free_ports "$count")"
        "$write_config"
        "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' \
            </dev/null 2>>"$dir/error.log" &
        NGINX_PID=$!
        # The master binds every port before it starts a worker, and exits when one is taken.
        for _ in $(seq 1 200); do
            ready=1
            for port in "${NGINX_PORTS[@]}"; do
                (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { ready=0; break; }
            done
            [ "$ready" -eq 1 ] && kill -0 "$NGINX_PID" 2>/dev/null && return 0
            kill -0 "$NGINX_PID" 2>/dev/null || break
            sleep 0.05
        done
        nginx_log "nginx did not start on ports ${NGINX_PORTS[*]} (attempt $attempt); its log follows"
        cat "$dir/error.log" >&2 || true
        nginx_stop
    done
    nginx_log "could not start nginx"
    return 1
}

nginx_end_process() {
    local pid="$1"
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

nginx_stop() {
    if [ -n "${NGINX_PID:-}" ]; then nginx_end_process "$NGINX_PID"; fi
    NGINX_PID=""
}

# The raw public key of PEM private key $1 as Apple's SecKeyCopyExternalRepresentation gives it,
# into $2: PKCS#1 RSAPublicKey for RSA, the uncompressed X9.63 point for EC (the SPKI's BIT STRING
# without its unused-bits byte). And OpenSSL's pin of the key into $3.
export_key() {
    local key="$1" raw="$2" pin="$3" spki
    spki="$(mktemp "$work/spki.XXXXXX")"
    openssl pkey -in "$key" -pubout -outform DER -out "$spki" 2>/dev/null
    openssl dgst -sha256 -binary "$spki" | openssl base64 -A >"$pin"
    if openssl rsa -in "$key" -noout 2>/dev/null; then
        openssl rsa -in "$key" -RSAPublicKey_out -outform DER -out "$raw" 2>/dev/null
    else
        # The point is the end of the SPKI: its BIT STRING's content after the unused-bits byte.
        local bits
        bits="$(openssl pkey -in "$key" -noout -text | sed -n 's/.*Private-Key: (\([0-9]*\) bit).*/\1/p')"
        tail -c $((1 + 2 * ((bits + 7) / 8))) "$spki" >"$raw"
    fi
    rm -f "$spki"
}

make_certificates() {
    local tls="$work/tls"
    mkdir -p "$tls/issued" "$work/keys"
    cat >"$tls/openssl.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
default_ca = test_ca
[test_ca]
database = $tls/index.txt
new_certs_dir = $tls/issued
rand_serial = yes
default_md = sha256
policy = any_name
unique_subject = no
[any_name]
commonName = supplied
[v3_ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
[v3_other_host]
basicConstraints = CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:other.invalid
[v3_client]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
EOF
    : >"$tls/index.txt"
    local cnf="$tls/openssl.cnf"
    ec() { openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$1" -out "$2" 2>/dev/null; }
    ec P-256 "$tls/ca.key"
    ec P-256 "$tls/client-ca.key"
    ec P-256 "$tls/client.key"
    ec P-256 "$tls/self-signed.key"
    ec P-256 "$work/keys/p256.key"
    ec P-384 "$work/keys/p384.key"
    ec P-521 "$work/keys/p521.key"
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tls/server.key" 2>/dev/null

    openssl req -config "$cnf" -x509 -new -key "$tls/ca.key" -subj "/CN=Endpoints throwaway CA" \
        -extensions v3_ca -days 2 -out "$tls/ca.pem"
    openssl req -config "$cnf" -x509 -new -key "$tls/client-ca.key" -subj "/CN=Endpoints throwaway client CA" \
        -extensions v3_ca -days 2 -out "$tls/client-ca.pem"
    openssl req -config "$cnf" -x509 -new -key "$tls/self-signed.key" -subj "/CN=127.0.0.1" \
        -extensions v3_server -days 2 -out "$tls/self-signed.pem"

    openssl req -config "$cnf" -new -key "$tls/server.key" -subj "/CN=127.0.0.1" -out "$tls/server.csr"
    sign() { # name extensions start end [ca]
        openssl ca -config "$cnf" -batch -notext -in "$tls/${5:-server}.csr" -cert "$tls/${6:-ca}.pem" \
            -keyfile "$tls/${6:-ca}.key" -extfile "$cnf" -extensions "$2" -startdate "$3" -enddate "$4" \
            -out "$tls/$1.pem" 2>/dev/null
    }
    local now tomorrow
    now="$(date -u -d '-1 hour' +%Y%m%d%H%M%SZ)"
    tomorrow="$(date -u -d '+2 days' +%Y%m%d%H%M%SZ)"
    sign server v3_server "$now" "$tomorrow"
    sign expired v3_server 20200101000000Z 20200102000000Z
    sign not-yet-valid v3_server 20990101000000Z 20990102000000Z
    sign other-host v3_other_host "$now" "$tomorrow"
    openssl req -config "$cnf" -new -key "$tls/client.key" -subj "/CN=Endpoints test client" -out "$tls/client.csr"
    sign client v3_client "$now" "$tomorrow" client client-ca

    password="$(openssl rand -hex 12)"
    openssl pkcs12 -export -in "$tls/client.pem" -inkey "$tls/client.key" -name "Endpoints test client" \
        -out "$tls/client.p12" -passout "pass:$password"

    cp "$tls/server.key" "$work/keys/rsa2048.key"
    local name
    for name in rsa2048 p256 p384 p521; do
        export_key "$work/keys/$name.key" "$work/keys/$name.raw" "$work/keys/$name.pin"
    done
}

# The test servers' configuration, on NGINX_PORTS in the order of `names` (see `main`).
write_config() {
    local i
    for i in "${!names[@]}"; do ports[${names[$i]}]="${NGINX_PORTS[$i]}"; done
    local user=""
    # Workers run as `nobody` when the master is root, unless told otherwise: keep them ours.
    [ "$(id -u)" -eq 0 ] && user="user $(id -un) $(id -gn);"
    local tls="$work/tls"
    server() { # port certificate key [http2] [directives]
        cat <<EOF
    server {
        listen 127.0.0.1:$1 ssl${4:+ http2};
        ssl_certificate $tls/$2.pem;
        ssl_certificate_key $tls/$3.key;
        ${5:-}
    }
EOF
    }
    {
        cat <<EOF
$user
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 512; }
http {
    log_format endpoints '\$server_port \$connection \$connection_requests \$server_protocol \$ssl_protocol \$request_method \$request_uri \$status \$ssl_client_verify';
    access_log $work/access.log endpoints;
    client_body_temp_path $work/temp/body;
    proxy_temp_path $work/temp/proxy;
    fastcgi_temp_path $work/temp/fastcgi;
    uwsgi_temp_path $work/temp/uwsgi;
    scgi_temp_path $work/temp/scgi;
    types { application/json json; application/octet-stream bin; }
    default_type application/octet-stream;
    root $work/www;
    ssl_protocols TLSv1.2 TLSv1.3;
    server {
        listen 127.0.0.1:${ports[http]};
        # The same files, each response's first 512 KiB at once and the rest at 64 KiB/s: a
        # download that can be paused midway (the resumable download suite).
        location /slow/ { alias $work/www/; limit_rate_after 512k; limit_rate 64k; }
    }
EOF
        # /gz/ serves the same files gzip-encoded (nginx's own compressor, level 6), for the
        # decoding tests over HTTP/2; elsewhere nothing is compressed.
        server "${ports[https]}" server server http2 \
            "location /gz/ { alias $work/www/; gzip on; gzip_types *; gzip_min_length 1; gzip_comp_level 6; }"
        server "${ports[expired]}" expired server
        server "${ports[not_yet_valid]}" not-yet-valid server
        server "${ports[wrong_host]}" other-host server
        server "${ports[self_signed]}" self-signed self-signed
        server "${ports[client_cert]}" server server http2 \
            "ssl_verify_client on; ssl_client_certificate $tls/client-ca.pem;"
        # VerifyMode Require makes OpenSSL refuse a handshake without a client certificate, as
        # most servers do; nginx alone would finish it and answer 400.
        local strict="ssl_verify_client on; ssl_client_certificate $tls/client-ca.pem;
        ssl_conf_command VerifyMode Peer,Require;"
        server "${ports[strict_client_cert]}" server server http2 "$strict"
        server "${ports[tls12_client_cert]}" server server http2 "$strict ssl_protocols TLSv1.2;"
        echo "}"
    } >"$work/nginx.conf"
}

serve_files() {
    mkdir -p "$work/www"
    printf '{"name":"endpoints","secure":true}\n' >"$work/www/small.json"
    head -c $((8 * 1024 * 1024)) /dev/urandom >"$work/www/large.bin"
    # About 6 MB of JSON that gzip makes about eight times smaller.
    seq 1 200000 | awk '{ printf "{\"id\":%d,\"name\":\"item %d\"},\n", $1, ($1 * 7919) % 1000 }' \
        >"$work/www/records.json"
}

cleanup() {
    nginx_stop
    [ -n "${work:-}" ] && rm -rf "$work"
}

main() {
    set -euo pipefail
    case "${1:-}" in
        install)
            shift
            nginx_install "$@"
            return
            ;;
        free-ports)
            [ "$#" -eq 2 ] || { nginx_log "usage: nginx.sh free-ports N"; exit 2; }
            nginx_free_ports "$2"
            return
            ;;
        run)
            shift
            [ "$#" -gt 0 ] || { nginx_log "usage: nginx.sh run COMMAND [ARGS...]"; exit 2; }
            ;;
        *)
            echo "usage: nginx.sh run COMMAND [ARGS...] | install [PACKAGE...] | free-ports N" >&2
            exit 2
            ;;
    esac

    nginx_install
    work="$(mktemp -d "${TMPDIR:-/tmp}/endpoints-nginx.XXXXXX")"
    NGINX_PID=""
    password=""
    names=(https expired not_yet_valid wrong_host self_signed client_cert strict_client_cert tls12_client_cert http)
    declare -gA ports
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    make_certificates
    serve_files
    nginx_start "$work" "${#names[@]}" write_config
    local status=0
    env \
        NGINX_HTTPS_PORT="${ports[https]}" NGINX_EXPIRED_PORT="${ports[expired]}" \
        NGINX_NOT_YET_VALID_PORT="${ports[not_yet_valid]}" NGINX_WRONG_HOST_PORT="${ports[wrong_host]}" \
        NGINX_SELF_SIGNED_PORT="${ports[self_signed]}" NGINX_CLIENT_CERT_PORT="${ports[client_cert]}" \
        NGINX_STRICT_CLIENT_CERT_PORT="${ports[strict_client_cert]}" \
        NGINX_TLS12_CLIENT_CERT_PORT="${ports[tls12_client_cert]}" NGINX_HTTP_PORT="${ports[http]}" \
        NGINX_CA="$work/tls/ca.pem" NGINX_CLIENT_CA="$work/tls/client-ca.pem" \
        NGINX_CLIENT_CERT="$work/tls/client.pem" NGINX_CLIENT_KEY="$work/tls/client.key" \
        NGINX_CLIENT_P12="$work/tls/client.p12" NGINX_CLIENT_P12_PASSWORD="$password" \
        NGINX_SERVER_PIN="$(cat "$work/keys/rsa2048.pin")" NGINX_OTHER_PIN="$(cat "$work/keys/p256.pin")" \
        NGINX_ROOT="$work/www" NGINX_ACCESS_LOG="$work/access.log" NGINX_KEYS="$work/keys" \
        "$@" || status=$?
    exit "$status"
}

# Run, not sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
