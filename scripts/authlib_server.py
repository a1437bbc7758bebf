"""An OAuth 2.0 authorization server built on Authlib and Flask, for the OAuth test suite.

Started by scripts/authlib.sh on a loopback port. Everything is kept in memory. It serves:

  POST /token                 client_credentials, authorization_code (PKCE S256 required for
                              public clients), refresh_token (single-use: each refresh issues a new
                              refresh token and revokes the old one), device_code (RFC 8628)
  GET  /authorize             the browser step, approved at once for the user `alice`
  GET  /callback              where /authorize redirects: echoes the URL it was called with
  POST /device_authorization  RFC 8628; interval 30 s; answers slow_down when polled sooner
  POST /revoke                RFC 7009
  GET  /resource              the protected resource: 200 with the token's scope, 401 otherwise

and, for the tests only:

  POST /test/clients          registers (besides `fixed-service`, secret `fixed-secret`) a client (JSON: auth_method, grant_types, scope) and
                              returns its id and secret, so each test counts its own requests
  GET  /test/stats?client_id= how many token requests that client made, by grant type
  POST /test/device           approves (approve=1) or denies a user_code, or expires it (expire=1)
"""

import argparse
import os
import secrets
import threading
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2.rfc6749 import ClientMixin, TokenMixin, grants
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8628 import (
    DeviceAuthorizationEndpoint,
    DeviceCodeGrant,
    DeviceCredentialDict,
)
from flask import Flask, jsonify, request

# Plain HTTP on loopback: Authlib refuses it unless told this is a test.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

lock = threading.RLock()
clients = {}
tokens_by_access = {}
tokens_by_refresh = {}
codes = {}
devices = {}
device_grants = {}
last_poll = {}
stats = {}
DEVICE_INTERVAL = 30


class Client(ClientMixin):
    def __init__(self, client_id, secret, auth_method, grant_types, scope, redirect_uri):
        self.client_id = client_id
        self.client_secret = secret
        self.auth_method = auth_method
        self.grant_types = grant_types
        self.scope = scope
        self.redirect_uri = redirect_uri

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uri

    def get_allowed_scope(self, scope):
        if not scope:
            return ""
        allowed = set(self.scope.split())
        return " ".join(s for s in scope.split() if s in allowed)

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri == self.redirect_uri

    def check_client_secret(self, client_secret):
        return self.client_secret is not None and secrets.compare_digest(
            self.client_secret.encode(), client_secret.encode()
        )

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class Token(TokenMixin):
    def __init__(self, client_id, user, data):
        self.client_id = client_id
        self.user = user
        self.access_token = data["access_token"]
        self.refresh_token = data.get("refresh_token")
        self.scope = data.get("scope", "")
        self.expires_in = data["expires_in"]
        self.issued_at = time.time()
        self.revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return self.issued_at + self.expires_in < time.time()

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return clients[self.client_id]


def query_client(client_id):
    with lock:
        return clients.get(client_id)


def save_token(token, req):
    client_id = req.client.get_client_id()
    user = getattr(req, "user", None)
    with lock:
        item = Token(client_id, user, token)
        tokens_by_access[item.access_token] = item
        if item.refresh_token:
            tokens_by_refresh[item.refresh_token] = item


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def save_authorization_code(self, code, req):
        with lock:
            codes[code] = {
                "client_id": req.client.get_client_id(),
                "redirect_uri": req.payload.redirect_uri,
                "scope": req.payload.scope,
                "code_challenge": req.payload.data.get("code_challenge"),
                "code_challenge_method": req.payload.data.get("code_challenge_method"),
                "user": "alice",
            }

    def query_authorization_code(self, code, client):
        with lock:
            item = codes.get(code)
        if item and item["client_id"] == client.get_client_id():
            return AuthorizationCode(code, item)
        return None

    def delete_authorization_code(self, authorization_code):
        with lock:
            codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return authorization_code.item["user"]


class AuthorizationCode:
    def __init__(self, code, item):
        self.code = code
        self.item = item
        self.code_challenge = item["code_challenge"]
        self.code_challenge_method = item["code_challenge_method"]

    def get_redirect_uri(self):
        return self.item["redirect_uri"]

    def get_scope(self):
        return self.item["scope"]


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        with lock:
            item = tokens_by_refresh.get(refresh_token)
        if item and not item.revoked:
            return item
        return None

    def authenticate_user(self, credential):
        return credential.user

    def revoke_old_credential(self, credential):
        with lock:
            credential.revoked = True


class ClientCredentialsGrant(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]


class DeviceGrant(DeviceCodeGrant):
    def query_device_credential(self, device_code):
        with lock:
            return devices.get(device_code)

    def query_user_grant(self, user_code):
        with lock:
            return device_grants.get(user_code)

    def should_slow_down(self, credential):
        # Slower than the interval the client was told is fine; sooner is answered with slow_down.
        now = time.time()
        with lock:
            last = last_poll.get(credential["device_code"])
            last_poll[credential["device_code"]] = now
        return last is not None and now - last < DEVICE_INTERVAL


class DeviceEndpoint(DeviceAuthorizationEndpoint):
    INTERVAL = DEVICE_INTERVAL

    def get_verification_uri(self):
        return request.host_url + "device"

    def save_device_credential(self, client_id, scope, data):
        with lock:
            devices[data["device_code"]] = DeviceCredentialDict(
                client_id=client_id, scope=scope, expires_at=time.time() + data["expires_in"], **data
            )


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def query_token(self, token_string, token_type_hint):
        with lock:
            if token_type_hint != "refresh_token" and token_string in tokens_by_access:
                return tokens_by_access[token_string]
            return tokens_by_refresh.get(token_string) or tokens_by_access.get(token_string)

    def revoke_token(self, token, req):
        with lock:
            token.revoked = True


class Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        with lock:
            return tokens_by_access.get(token_string)


app = Flask(__name__)
app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {"client_credentials": 3600, "authorization_code": 3600}
app.config["OAUTH2_REFRESH_TOKEN_GENERATOR"] = True
server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
server.register_grant(AuthorizationCodeGrant, [CodeChallenge(required=True)])
server.register_grant(RefreshTokenGrant)
server.register_grant(ClientCredentialsGrant)
server.register_grant(DeviceGrant)
server.register_endpoint(DeviceEndpoint)
server.register_endpoint(Revocation)
protector = ResourceProtector()
protector.register_token_validator(Validator())


@app.before_request
def count_token_requests():
    if request.path == "/token":
        client_id = request.form.get("client_id")
        if not client_id and request.authorization:
            client_id = request.authorization.username
        with lock:
            per_client = stats.setdefault(client_id, {})
            grant = request.form.get("grant_type", "")
            per_client[grant] = per_client.get(grant, 0) + 1


@app.post("/token")
def issue_token():
    return server.create_token_response()


@app.get("/authorize")
def authorize():
    return server.create_authorization_response(grant_user="alice")


@app.get("/callback")
def callback():
    return jsonify(url=request.url)


@app.post("/device_authorization")
def device_authorization():
    return server.create_endpoint_response("device_authorization")


@app.post("/revoke")
def revoke():
    return server.create_endpoint_response("revocation")


@app.get("/resource")
@protector()
def resource():
    from authlib.integrations.flask_oauth2 import current_token

    return jsonify(user=current_token.user, scope=current_token.scope, client_id=current_token.client_id)


@app.post("/test/clients")
def register_client():
    body = request.get_json()
    client_id = "client-" + secrets.token_hex(8)
    # A secret with characters that RFC 6749 §2.3.1 form-encodes before Basic: ':' '&' '%' 'é'.
    secret = None if body["auth_method"] == "none" else "s3cret:&%é-" + secrets.token_hex(4)
    with lock:
        clients[client_id] = Client(
            client_id,
            secret,
            body["auth_method"],
            body["grant_types"],
            body.get("scope", "read write"),
            request.host_url + "callback",
        )
    return jsonify(client_id=client_id, client_secret=secret, redirect_uri=request.host_url + "callback")


@app.get("/test/stats")
def client_stats():
    with lock:
        return jsonify(stats.get(request.args["client_id"], {}))


@app.post("/test/device")
def device_decision():
    user_code = request.form["user_code"]
    with lock:
        if request.form.get("expire") == "1":
            for credential in devices.values():
                if credential["user_code"] == user_code:
                    credential["expires_at"] = 0
        else:
            device_grants[user_code] = ("alice", request.form.get("approve") == "1")
    return jsonify(ok=True)


# A client registered in advance, so a test can declare `static let auth = OAuth(...)` on a
# server without registering one first.
clients["fixed-service"] = Client(
    "fixed-service", "fixed-secret", "client_secret_basic", ["client_credentials"], "read write", ""
)


@app.get("/health")
def health():
    return "ok"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app.run(host="127.0.0.1", port=args.port, threaded=True)
