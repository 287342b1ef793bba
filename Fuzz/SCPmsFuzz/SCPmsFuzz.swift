// libFuzzer input function for the SCPms parsers: the SwiftPM target SCPmsFuzz, built for fuzzing by
// tools/fuzz-scpms.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// The first byte chooses the parser (seeds start with the digit of theirs), the rest is its input:
// - 0: a request path, as SCPmsRoute routes it;
// - 1: an OData request body, as ConnectionSettings reads it (POST/PUT …/Connections);
// - 2: an OData date, `/Date(ms)/`;
// - 3: a client log upload, as ClientLogLine reads it.
//
// Invariants checked on every input:
// - parsing never traps; a refusal says something;
// - a route's ids are valid ids, and the canonical path of a route routes to the same route;
// - accepted settings keep their rules (known names, at most 512 bytes, a known DeviceType), the OData JSON the
//   server writes for them is JSON, and written back as a body they parse to the same settings;
// - a date re-formatted parses to the same milliseconds, and its calendar form never traps (and, for years 0–9999,
//   is a timestamp a log line accepts);
// - every accepted log line, written as a client uploads it, parses back to the same line, alone and as an upload.

import Foundation
import FuzzReplay
import SCPms

@_cdecl("LLVMFuzzerTestOneInput")
public func scpmsFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 4 {
    case 0: checkRoute(String(decoding: input, as: UTF8.self))
    case 1: checkSettings(Array(input))
    case 2: checkDate(String(decoding: input, as: UTF8.self))
    default: checkLogUpload(String(decoding: input, as: UTF8.self))
    }
    return 0
}

private func checkRoute(_ path: String) {
    switch SCPmsRoute.parse(path: path) {
    case .success(let route):
        let canonical: String
        switch route {
        case .connections(let app):
            precondition(SCPmsRoute.isValidId(app), "an invalid application id was routed")
            canonical = "/odata/applications/latest/\(app)/Connections"
        case .connection(let app, let id):
            precondition(SCPmsRoute.isValidId(app) && SCPmsRoute.isValidId(id), "an invalid id was routed")
            canonical = "/odata/applications/v1/\(app)/Connections('\(id)')"
        case .clientLogs(let app):
            precondition(SCPmsRoute.isValidId(app), "an invalid application id was routed")
            canonical = "/mobileservices/application/\(app)/clientlogs/v1/runtime/log/application/\(app)"
        case .application(let app):
            precondition(SCPmsRoute.isValidId(app), "an invalid application id was routed")
            canonical = "/\(app)"
        case .service(let app, let resource):
            precondition(SCPmsRoute.isValidId(app) && !resource.isEmpty, "an invalid application id or an empty resource was routed")
            // The resource is decoded: a '%' in it is written %25 again.
            canonical = "/\(app)/" + resource.replacingOccurrences(of: "%", with: "%25")
            let answer = ODataService.demo.answer(method: "GET", resource: resource, query: [], accept: nil, serviceRoot: "https://h/\(app)/")
            precondition([200, 400, 404].contains(answer.status), "the OData service answered \(answer.status) to a GET")
        }
        precondition(SCPmsRoute.parse(path: canonical) == .success(route), "the canonical path \(canonical) routes elsewhere")
    case .failure(.malformed(let why)), .failure(.notFound(let why)):
        precondition(!why.isEmpty, "a route refusal without a message")
    }
}

private func checkSettings(_ body: [UInt8]) {
    switch ConnectionSettings.parse(json: body) {
    case .success(let settings):
        for (name, value) in settings.values {
            precondition(ConnectionSettings.fields.contains(name), "an unknown property \(name) was kept")
            precondition(value.utf8.count <= ConnectionSettings.maxValueLength, "property \(name) is over the limit")
        }
        if let type = settings["DeviceType"] {
            precondition(ConnectionSettings.deviceTypes.contains(type), "DeviceType \(type) was not normalised")
        }
        let members = ConnectionSettings.fields.compactMap { name in settings[name].map { (name, ODataJSON.Value.string($0)) } }
        let written = Array(ODataJSON.text(.object(members)).utf8)
        switch ConnectionSettings.parse(json: written) {
        case .success(let again): precondition(again == settings, "settings written back parse differently")
        case .failure(let error): preconditionFailure("settings written back are refused: \(error)")
        }
        let entity = ApplicationConnection(
            id: "c1", applicationId: "a1", owner: "u", createdAtMilliseconds: 0, modifiedAtMilliseconds: 0,
            settings: settings
        ).odataJSON(uri: "https://x/Connections('c1')")
        precondition((try? JSONSerialization.jsonObject(with: Data(entity.utf8))) != nil, "the server's OData entity is not JSON")
    case .failure(let error):
        precondition(!error.description.isEmpty, "a settings refusal without a message")
    }
}

private func checkDate(_ text: String) {
    guard let milliseconds = ODataDate.parse(text) else { return }
    precondition(ODataDate.parse(ODataDate.format(milliseconds: milliseconds)) == milliseconds, "a formatted date parses differently")
    let timestamp = ClientLogLine.timestamp(milliseconds: milliseconds)
    _ = ODataDate.iso8601(milliseconds: milliseconds)
    // 0000-01-01 to 9999-12-31: four-digit years, the form log lines carry.
    if milliseconds >= -62_167_219_200_000 && milliseconds < 253_402_300_800_000 {
        let line = ClientLogLine(timestamp: timestamp, severity: .info, message: "m")
        guard case .success(let again) = ClientLogLine.parse(line.text[...]), again == line else {
            preconditionFailure("the log timestamp \(timestamp) for \(milliseconds) ms is refused")
        }
    }
}

private func checkLogUpload(_ body: String) {
    switch ClientLogLine.parseUpload(body, maxLines: 1000) {
    case .success(let lines):
        for line in lines {
            guard case .success(let again) = ClientLogLine.parse(line.text[...]), again == line else {
                preconditionFailure("a parsed log line, written back, does not parse the same: \(line.text.debugDescription)")
            }
        }
        let upload = lines.map(\.text).joined(separator: "\n") + "\n"
        guard case .success(let again) = ClientLogLine.parseUpload(upload, maxLines: 1000), again == lines else {
            preconditionFailure("parsed log lines, uploaded again, do not parse the same")
        }
    case .failure(let error):
        precondition(!error.description.isEmpty, "a log refusal without a message")
    }
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(scpmsFuzzOneInput) } }
#endif
