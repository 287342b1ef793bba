// libFuzzer input function for the IPP decoder: the SwiftPM target IPPFuzz, built for fuzzing by
// tools/fuzz-ipp.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// Invariants checked on every input:
// - decoding never traps, and every error says something;
// - when decoding succeeds, encoding gives back exactly the consumed prefix;
// - decodePrefix agrees with decode (complete / needMoreData for truncation / same error);
// - reading every value, describing the message and rebuilding it from typed values never trap;
// - the typed views of every value read in a single pass equal those read position by position, and every string
//   view (names included) makes a String with exactly its bytes (the decoder let only UTF-8 through);
// - the non-escapable spans of every value (IPPValueSpan) are as many as the views and read the same strings;
// - copying every attribute into a new message (the builders' byte-for-byte copy) gives an equal message;
// - decode(_:into:), into one message kept from input to input (its buffer reused), agrees with decode: the same
//   message and offset, or the same error and then a message without groups;
// - IPPFrameScanner (what MiG runs on every arriving chunk), fed the input in chunks, finds the decoder's end of
//   the attributes whenever the decoder finds one, and never claims an end while the decoder still wants bytes.

import FuzzReplay
import IPP

@_cdecl("LLVMFuzzerTestOneInput")
public func ippFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let decoder = IPPDecoder()
    let outcome: Result<(message: IPPMessage, documentOffset: Int), IPPError> =
        Result { () throws(IPPError) in try decoder.decodeWithDocumentOffset(bytes) }
    let prefix = Result { () throws(IPPError) in try decoder.decodePrefix(bytes) }

    switch (outcome, prefix) {
    case (.success(let decoded), .success(.complete(let again, let offset))):
        precondition(offset == decoded.documentOffset && again == decoded.message, "decodePrefix disagrees with decode")
        check(decoded.message, consumed: Array(bytes[0..<decoded.documentOffset]))
    case (.failure(let error), .success(.needMoreData(let atLeast))):
        precondition(error.kind == .truncated, "needMoreData for a non-truncation error: \(error)")
        precondition(atLeast > size, "needMoreData asks for \(atLeast) bytes with \(size) available")
    case (.failure(let error), .failure(let prefixError)):
        precondition(error.kind != .truncated && error == prefixError, "errors differ: \(error) / \(prefixError)")
        precondition(!error.message.isEmpty && error.offset >= 0 && error.offset <= size, "imprecise error: \(error)")
    default:
        preconditionFailure("decode and decodePrefix disagree: \(outcome) / \(prefix)")
    }
    checkScanner(bytes, against: prefix)
    checkReuse(bytes, against: outcome)
    return 0
}

/// The message every input is decoded into as well (libFuzzer calls the target from one thread).
nonisolated(unsafe) private var reused = IPPMessage(code: 0, requestID: 0)

private func checkReuse(_ bytes: [UInt8], against outcome: Result<(message: IPPMessage, documentOffset: Int), IPPError>) {
    let again = Result { () throws(IPPError) in try IPPDecoder().decode(bytes, into: &reused) }
    switch (outcome, again) {
    case (.success(let decoded), .success(let offset)):
        precondition(offset == decoded.documentOffset && reused == decoded.message, "decode(_:into:) disagrees with decode")
        precondition(reused.version == decoded.message.version && reused.requestID == decoded.message.requestID)
    case (.failure(let error), .failure(let intoError)):
        precondition(error == intoError, "errors differ: \(error) / \(intoError)")
        precondition(reused.groupCount == 0, "a failed decode(_:into:) left \(reused.groupCount) groups")
    default:
        preconditionFailure("decode and decode(_:into:) disagree: \(outcome) / \(again)")
    }
}

private func checkScanner(_ bytes: [UInt8], against prefix: Result<IPPDecoder.Progress, IPPError>) {
    // Chunks of 1…13 bytes, chosen by the input, as a network would deliver them.
    let chunk = 1 + Int(bytes.first ?? 0) % 13
    var scanner = IPPFrameScanner()
    var scanned = IPPFrameScanner.Outcome.needMoreData
    var received = 0
    while received < bytes.count, scanned == .needMoreData {
        received = min(bytes.count, received + chunk)
        scanned = scanner.scan(bytes[0..<received])
    }
    switch prefix {
    case .success(.complete(_, let offset)):
        precondition(scanned == .complete(documentOffset: offset), "the scanner found \(scanned), the decoder an end at \(offset)")
    case .success(.needMoreData):
        precondition(scanned == .needMoreData, "the scanner found \(scanned) where the decoder wants more bytes")
    case .failure:
        break  // the framing may be whole while the content is wrong: the decoder says what
    }
}

private func check(_ message: IPPMessage, consumed: [UInt8]) {
    guard let encoded = try? message.encoded() else { preconditionFailure("a decoded message failed to encode") }
    precondition(encoded == consumed, "encode(decode(x)) differs from the consumed prefix of x")
    precondition(message.encodedSize == consumed.count, "encodedSize is wrong")

    _ = message.description
    _ = message.validateRequest()
    var rebuilt = IPPMessage(version: message.version, code: message.code, requestID: message.requestID)
    for group in message.groups {
        _ = group.firstDuplicateName
        rebuilt.addGroup(group.tag) { builder in
            for attribute in group {
                _ = (attribute.integerValue, attribute.booleanValue, attribute.stringValues, attribute.group)
                checkViews(attribute)
                builder.add(attribute.name, values: attribute.values)
            }
        }
    }
    if let bytes = try? rebuilt.encoded() {
        _ = try? IPPDecoder().decode(bytes)
    }
    var copied = IPPMessage(version: message.version, code: message.code, requestID: message.requestID)
    for group in message.groups {
        copied.addGroup(group.tag) { builder in
            for attribute in group { builder.add(attribute) }
        }
    }
    precondition(copied == message, "copying every attribute gives a different message")
}

private func checkViews(_ attribute: IPPAttribute) {
    checkString(attribute.nameView)
    let views = attribute.valueViews
    let iterated = Array(views)
    precondition(iterated == views.indices.map { views[$0] }, "iterating the value views differs from indexing them")
    precondition(iterated.count == attribute.count, "value views and the value count differ")
    iterated.forEach(checkView)
    precondition(attribute.nameSpan.string == attribute.nameView.string, "the name span differs from the name view")
    precondition(spanStrings(attribute.valueSpans) == iterated.flatMap(viewStrings), "the value spans differ from the views")
}

/// Every string of the values and their collections' members (names included), in wire order, read through spans.
private func spanStrings(_ spans: consuming IPPValueSpans) -> [String] {
    var strings: [String] = []
    while let span = spans.next() {
        switch span {
        case .collection(var members):
            while let member = members.next() {
                strings.append(member.name.string)
                strings += spanStrings(member.values)
            }
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            strings += [text.string, language.string]
        case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
            .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
            strings.append(string.string)
        case .octetString(let bytes), .other(_, let bytes):
            strings.append("\(bytes.count) bytes")
        default:
            strings.append("-")
        }
    }
    return strings
}

/// The same strings read through views.
private func viewStrings(_ view: IPPValueView) -> [String] {
    switch view {
    case .collection(let collection):
        return collection.flatMap { [$0.name.string] + $0.values.flatMap(viewStrings) }
    case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
        return [text.string, language.string]
    case .octetString(let bytes), .other(_, let bytes):
        return ["\(bytes.count) bytes"]
    default:
        return [view.stringView?.string ?? "-"]
    }
}

private func checkView(_ view: IPPValueView) {
    switch view {
    case .collection(let collection):
        for member in collection {
            checkString(member.name)
            member.values.forEach(checkView)
        }
    case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
        checkString(text)
        checkString(language)
    default:
        if let string = view.stringView { checkString(string) }
    }
}

private func checkString(_ view: IPPStringView) {
    precondition(view.string.utf8.elementsEqual(view.utf8) && view == view.string, "a string view is not valid UTF-8")
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(ippFuzzOneInput) } }
#endif
