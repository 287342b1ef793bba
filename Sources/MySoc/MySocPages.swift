import Foundation
import MarkupEscaping
import NIOCore
import NIOHTTP1
import Wire
import WireHTTP

/// The pages of the site: the login form, the quota page, and the refusals in between.
struct MySocPages: Sendable {
    let node: Node
    let configuration: MySoc.Configuration

    func answer(_ request: HTTPServerRequest) async -> HTTPResponse {
        if node.fault(MySoc.unavailableFault) {
            return html(.serviceUnavailable, "Service Unavailable", "<p>mysoc is down for maintenance. Please try again later.</p>")
        }
        switch (request.method, request.path) {
        case (.GET, MySoc.loginPath):
            return loginPage(message: nil)
        case (.POST, MySoc.loginPath):
            return await login(request)
        case (.GET, MySoc.quotaDestination):
            // Without the login cookie Apache's AuthDBICookieHandler sends the visitor to the form.
            return HTTPResponse(status: .found, headers: ["Location": MySoc.loginPath + "?destination=" + MySoc.quotaDestination])
        case (.GET, "/~myacct/"):
            return html(.ok, "Account", "<p>Forgot your password? Reset it at the SoC account desk or with your NUSNET login.</p>")
        case (_, MySoc.loginPath):
            return HTTPResponse(status: .methodNotAllowed, headers: ["Allow": "GET, POST"])
        default:
            return html(.notFound, "Not Found", "<p>The requested URL \(escape(request.path)) was not found on this server.</p>")
        }
    }

    /// The form post, exactly as the app sends it: `destination=…&credential_0=USER&credential_1=PASSWORD&AuthType=…&AuthName=…`.
    ///
    /// The app does not URL-encode its body; a browser does. Both are read: `%XX` and `+` are decoded only when the
    /// request says it is form-encoded — so a password with `%` typed into the app still matches.
    private func login(_ request: HTTPServerRequest) async -> HTTPResponse {
        let encoded = request.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        let form = FormBody(request.text, percentEncoded: encoded)
        guard let destination = form["destination"], destination == MySoc.quotaDestination else {
            return loginPage(message: "Unknown destination \(escape(form["destination"] ?? "(none)")); expected \(MySoc.quotaDestination).")
        }
        guard let user = form["credential_0"], let password = form["credential_1"], !user.isEmpty else {
            node.trace("login-failed", [("user", form["credential_0"] ?? ""), ("reason", "missing credentials")])
            return loginPage(message: "Please enter your user ID and password.")
        }
        let answer: QuotaDirectory.Answer
        do {
            answer = try await QuotaDirectory.ask(user: user, password: password, configuration: configuration, node: node)
        } catch {
            node.trace("directory-unreachable", [("reason", "\(error)")])
            return html(.badGateway, "Bad Gateway", "<p>The account directory cannot be reached. Please try again later.</p>")
        }
        guard case .quotas(let realm, let rows) = answer else {
            node.trace("login-failed", [("user", user), ("reason", "wrong credentials")])
            return loginPage(message: "Login failed: your user ID or password is incorrect.")
        }
        node.trace("quota-page", [("user", user), ("realm", realm), ("rows", String(rows.count))])
        return quotaPage(user: user, rows: rows)
    }

    // MARK: Pages

    private func loginPage(message: String?) -> HTTPResponse {
        let note = message.map { "<p class=\"error\">\(escape($0))</p>\n" } ?? ""
        return html(
            .ok, "mysoc login",
            """
            \(note)<form method="POST" action="\(MySoc.loginPath)">
            <input type="hidden" name="destination" value="\(MySoc.quotaDestination)">
            <input type="hidden" name="AuthType" value="AuthDBICookieHandler">
            <input type="hidden" name="AuthName" value="mysoc">
            User ID: <input type="text" name="credential_0"><br>
            Password: <input type="password" name="credential_1"><br>
            <input type="submit" value="Login">
            </form>
            """)
    }

    /// The quota table: one `<tr><td bgcolor=…>TYPE available quota</td><td bgcolor=…>VALUE</td></tr>` per row, which
    /// is what the app's regular expression reads.
    private func quotaPage(user: String, rows: [(type: String, value: Int)]) -> HTTPResponse {
        let table = rows.map { row in
            "<tr><td bgcolor=#EEEEEE><b>\(escape(row.type)) available quota</b></td><td bgcolor=#FFFFFF>\(row.value)</td></tr>"
        }.joined(separator: "\n")
        return html(
            .ok, "ePrint quota",
            """
            <h2>Print quota of \(escape(user))</h2>
            <table border=1 cellpadding=4>
            \(table)
            </table>
            """)
    }

    private func html(_ status: HTTPResponseStatus, _ title: String, _ body: String) -> HTTPResponse {
        let page = "<html><head><title>\(escape(title))</title></head><body>\n\(body)\n</body></html>\n"
        return HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: ByteBuffer(string: page))
    }

    private func escape(_ text: String) -> String { MarkupText.escaped(text, .minimal) }
}

/// `name=value&…` pairs; the first occurrence of a name wins.
struct FormBody {
    private var fields: [(String, String)] = []

    init(_ text: String, percentEncoded: Bool) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let decode = { (value: String) -> String in
                percentEncoded ? (value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value) : value
            }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
    }

    subscript(name: String) -> String? { fields.first { $0.0 == name }?.1 }
}
