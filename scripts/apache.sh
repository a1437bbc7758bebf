#!/usr/bin/env bash
# Apache httpd on loopback for the Digest authentication tests: mod_auth_digest is the Digest
# server most deployments run, and a stricter one than httpbin's (it checks the `uri` against the
# request line and the nonce's age). Installs apache2 with apt-get when missing (through
# scripts/nginx.sh, the one place that installs packages), picks a free port, runs the command
# with APACHE_URL set, and stops the server.
#
#   scripts/apache.sh run COMMAND [ARGS...]
#
# The server runs in the foreground of a background process, as the current user, from a
# throwaway directory. Its paths (user "user", password "passwd", realm "endpoints"):
#   /digest/data.json         Digest-protected, nonces valid for 300 s (the default)
#   /digest/moved.json        a 302 to /digest/data.json, before any authentication
#   /short-nonce/data.json    the same, nonces valid for 3 s: the next request after that is
#                             refused with `stale=true`
# and two forward proxies (mod_proxy, CONNECT to any port allowed, `Via` added to what they
# forward), each on a port of its own, answering a request without the same user's credentials
# with 407:
#   APACHE_PROXY_BASIC_URL    asks for Basic
#   APACHE_PROXY_DIGEST_URL   asks for Digest (realm "endpoints")
#   APACHE_PROXY_LOG          both proxies' log: a line a request, as each ends,
#                             `PORT STATUS REQUEST-LINE` (`34285 407 GET http://… HTTP/1.1`)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/nginx.sh
source scripts/nginx.sh

apache_log() { echo "apache.sh: $*" >&2; }

apache_binary() {
    command -v apache2 2>/dev/null && return
    [ -x /usr/sbin/apache2 ] && { echo /usr/sbin/apache2; return; }
    return 1
}

# The directory of the Debian package's modules.
apache_modules() {
    local dir
    for dir in /usr/lib/apache2/modules /usr/lib64/httpd/modules /usr/lib/httpd/modules; do
        [ -f "$dir/mod_auth_digest.so" ] && { echo "$dir"; return; }
    done
    return 1
}

write_config() {
    local modules
    modules="$(apache_modules)"
    cat >"$work/httpd.conf" <<EOF
ServerRoot "$work"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
Listen 127.0.0.1:$basic_proxy_port
Listen 127.0.0.1:$digest_proxy_port
PidFile "$work/httpd.pid"
ErrorLog "$work/error.log"
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authn_file_module $modules/mod_authn_file.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule auth_digest_module $modules/mod_auth_digest.so
LoadModule auth_basic_module $modules/mod_auth_basic.so
LoadModule alias_module $modules/mod_alias.so
LoadModule proxy_module $modules/mod_proxy.so
LoadModule proxy_http_module $modules/mod_proxy_http.so
LoadModule proxy_connect_module $modules/mod_proxy_connect.so
DocumentRoot "$work/www"
Redirect 302 /digest/moved.json /digest/data.json
<Location /digest/>
    AuthType Digest
    AuthName "endpoints"
    AuthDigestDomain /digest/
    AuthUserFile "$work/htdigest"
    Require valid-user
</Location>
<Location /short-nonce/>
    AuthType Digest
    AuthName "endpoints"
    AuthDigestDomain /short-nonce/
    AuthDigestNonceLifetime 3
    AuthUserFile "$work/htdigest"
    Require valid-user
</Location>
<VirtualHost 127.0.0.1:$basic_proxy_port>
    ProxyRequests On
    ProxyVia On
    AllowCONNECT 1-65535
    CustomLog "$work/proxy.log" "%p %>s %r"
    <Proxy "*">
        AuthType Basic
        AuthName "endpoints"
        AuthUserFile "$work/htpasswd"
        Require valid-user
    </Proxy>
</VirtualHost>
<VirtualHost 127.0.0.1:$digest_proxy_port>
    ProxyRequests On
    ProxyVia On
    AllowCONNECT 1-65535
    CustomLog "$work/proxy.log" "%p %>s %r"
    <Proxy "*">
        AuthType Digest
        AuthName "endpoints"
        AuthUserFile "$work/htdigest"
        Require valid-user
    </Proxy>
</VirtualHost>
EOF
}

cleanup() {
    if [ -n "${pid:-}" ]; then nginx_end_process "$pid"; fi
    pid=""
    if [ -n "${work:-}" ]; then rm -rf "$work"; fi
}

# A throwaway directory with the files the server serves and its user file.
prepare() {
    work="$(mktemp -d "${TMPDIR:-/tmp}/endpoints-apache.XXXXXX")"
    mkdir -p "$work/www/digest" "$work/www/short-nonce"
    printf '{"authenticated":true}\n' | tee "$work/www/digest/data.json" >"$work/www/short-nonce/data.json"
    # htdigest's line: user:realm:MD5(user:realm:password).
    printf 'user:endpoints:%s\n' "$(printf 'user:endpoints:passwd' | md5sum | cut -d' ' -f1)" >"$work/htdigest"
    # htpasswd's line for Basic: user:{SHA}base64(SHA-1(password)).
    printf 'user:{SHA}%s\n' "$(printf 'passwd' | openssl dgst -sha1 -binary | base64)" >"$work/htpasswd"
}

[ "${1:-}" = run ] && [ "$#" -gt 1 ] || { echo "usage: apache.sh run COMMAND [ARGS...]" >&2; exit 2; }
shift
nginx_install apache2
apache="$(apache_binary)" || { apache_log "apache2 is not installed"; exit 1; }
apache_modules >/dev/null || { apache_log "mod_auth_digest is not installed"; exit 1; }
work=""
pid=""
trap cleanup EXIT
trap 'exit 130' INT TERM
# The port is chosen by binding port 0 and releasing it; if it is taken meanwhile, another is.
for attempt in 1 2 3 4 5; do
    prepare
    read -r port basic_proxy_port digest_proxy_port <<<"$(nginx_free_ports 3)"
    write_config
    "$apache" -f "$work/httpd.conf" -D FOREGROUND </dev/null >>"$work/error.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    apache_log "apache2 did not start on port $port (attempt $attempt); its log follows"
    cat "$work/error.log" >&2 || true
    cleanup
    [ "$attempt" -eq 5 ] && { apache_log "could not start apache2"; exit 1; }
done
status=0
APACHE_URL="http://127.0.0.1:$port" \
    APACHE_PROXY_BASIC_URL="http://127.0.0.1:$basic_proxy_port" \
    APACHE_PROXY_DIGEST_URL="http://127.0.0.1:$digest_proxy_port" \
    APACHE_PROXY_LOG="$work/proxy.log" \
    "$@" || status=$?
exit "$status"
