import Foundation
import Testing

@testable import Endpoints

@Suite struct MiddlewareRedactionTests {
    @Test func jsonFieldsAreHiddenAtAnyDepthAndInAnyCase() throws {
        let body = Data(
            #"{"Password":"a","profile":{"accessToken":"b","list":[{"refresh_token":"c","REFRESH-TOKEN":"d"}]},"client_secret":"e","tokenType":"bearer","name":"ada"}"#
                .utf8
        )
        let shown = String(decoding: Redaction.standard.redactedBody(body, contentType: nil), as: UTF8.self)
        for secret in ["\"a\"", "\"b\"", "\"c\"", "\"d\"", "\"e\""] {
            #expect(!shown.contains(secret))
        }
        #expect(shown.contains(#""tokenType":"bearer""#))
        #expect(shown.contains(#""name":"ada""#))
    }

    @Test func malformedJSONStillHidesSensitiveStrings() {
        let cut = Data(#"{"user":"ada","password" : "pa\"55","nested":{"refresh_token":"r3fresh","#.utf8)
        let shown = String(
            decoding: Redaction.standard.redactedBody(cut, contentType: "application/json"), as: UTF8.self)
        #expect(shown == #"{"user":"ada","password" : "<redacted>","nested":{"refresh_token":"<redacted>","#)
    }

    @Test func bodiesWithNothingToHideKeepTheirBytes() {
        let body = Data("{ \"name\" : \"ada\",\n \"n\": 1.50 }".utf8)
        #expect(Redaction.standard.redactedBody(body, contentType: "application/json") == body)
        #expect(
            Redaction.disabled.redactedBody(Data(#"{"password":"x"}"#.utf8), contentType: nil)
                == Data(#"{"password":"x"}"#.utf8))
    }

    @Test func formAndQueryValuesAreHidden() {
        let form = Data("user=ada&pass%77ord=x&api_key=y&q=a+b".utf8)
        let shown = String(
            decoding: Redaction.standard.redactedBody(form, contentType: "application/x-www-form-urlencoded"),
            as: UTF8.self)
        #expect(shown == "user=ada&pass%77ord=<redacted>&api_key=<redacted>&q=a+b")
        let url = URL(string: "https://u:p@example.com/a?access_token=x&q=1#frag")!
        #expect(
            Redaction.standard.redactedURL(url) == "https://<redacted>@example.com/a?access_token=<redacted>&q=1#frag")
        #expect(
            Redaction.standard.redactedURL(URL(string: "https://example.com/a?q=1")!) == "https://example.com/a?q=1")
    }

    @Test func multipartFieldsAreHidden() {
        let body = Data(
            "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n--XyZ\r\nContent-Disposition: form-data; filename=\"a.txt\"; name=\"password\"\r\n\r\nhunter2\r\n--XyZ--\r\n"
                .utf8
        )
        let shown = String(
            decoding: Redaction.standard.redactedBody(body, contentType: "multipart/form-data; boundary=XyZ"),
            as: UTF8.self)
        #expect(!shown.contains("hunter2"))
        #expect(shown.contains("ada"))
        #expect(shown.contains("name=\"password\"\r\n\r\n<redacted>\r\n--XyZ--"))
    }

    @Test func headersFollowTheListTheCredentialHeadersAndTheFieldNames() {
        let redaction = Redaction.standard
        #expect(redaction.hidesHeader("authorization"))
        #expect(redaction.hidesHeader("Set-Cookie"))
        #expect(redaction.hidesHeader("X-Auth-Token"))
        #expect(redaction.hidesHeader("X-Tenant-Credential", credentialHeaders: ["x-tenant-credential"]))
        #expect(!redaction.hidesHeader("X-Tenant-Credential"))
        #expect(redaction.hidesHeader("X-Client-Key"), "a well-known key header is hidden without a context")
        #expect(!redaction.hidesHeader("Content-Type"))
        #expect(!redaction.revealing("Authorization").hidesHeader("authorization"))
        #expect(redaction.redacting(headers: ["X-Session"]).hidesHeader("x-session"))
        #expect(!Redaction.disabled.hidesHeader("Authorization"))
    }
}
