import Foundation

/// The scalar fields of a JSON body, by path (`d.UserName`, `d.results[0].Name`): what `record --to-scenario` expects of
/// an answer and what `diff` holds side by side. A field whose name or value says it changes from run to run (an id, a
/// date, a token) is volatile: only its shape is held to.
package struct JSONFields {
    package enum Value: Equatable {
        case string(String)
        /// Numbers and booleans, as JSONSerialization renders them (the same on both sides of a diff).
        case literal(String)
        case null

        /// `string`, `number`… : what a volatile field is compared by.
        package var shape: String {
            switch self {
            case .string: "string"
            case .literal(let text): text == "true" || text == "false" ? "boolean" : "number"
            case .null: "null"
            }
        }

        package var shown: String {
            switch self {
            case .string(let text): "\"\(text)\""
            case .literal(let text): text
            case .null: "null"
            }
        }
    }

    package struct Field {
        /// Dotted, with `[i]` for array elements.
        package let path: String
        /// The member's own name.
        package let key: String
        package let value: Value
        package let volatile: Bool
        /// Inside an array: a pattern on the body cannot tell which element it is about.
        package let inArray: Bool

        /// A pattern the body must match for this field (`"Key" *: *"value"`, or by shape when volatile); nil when no
        /// pattern this field makes matches `body` itself (a key that repeats with other values, an escaped string).
        package func pattern(in body: String) -> String? {
            guard !inArray else { return nil }
            let key = "\"" + regexEscaped(self.key) + "\" *: *"
            var candidates: [String] = []
            switch value {
            case .string(let text):
                if !volatile { candidates.append(key + "\"" + regexEscaped(text) + "\"") }
                candidates.append(key + "\"[^\"]*\"")
            case .literal(let text):
                if !volatile { candidates.append(key + regexEscaped(text) + "[,} \\n\\]]") }
                candidates.append(key + (value.shape == "boolean" ? "(true|false)" : "-?[0-9]"))
            case .null:
                candidates.append(key + "null")
            }
            return candidates.first { pattern in (try? Regex(pattern).firstMatch(in: body)) != nil }
        }
    }

    /// At most this many fields of one body: a long list is checked by its first elements.
    package static let limit = 200

    package private(set) var fields: [Field] = []
    /// Whether the body was JSON at all.
    package let isJSON: Bool

    package init(_ text: String) {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
            value is [String: Any] || value is [Any]
        else {
            isJSON = false
            return
        }
        isJSON = true
        walk(value, path: "", key: "", inArray: false, depth: 0)
    }

    private mutating func walk(_ value: Any, path: String, key: String, inArray: Bool, depth: Int) {
        guard fields.count < Self.limit, depth <= 6 else { return }
        if let object = value as? [String: Any] {
            for name in object.keys.sorted() {
                walk(object[name]!, path: path.isEmpty ? name : "\(path).\(name)", key: name, inArray: inArray, depth: depth + 1)
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() { walk(element, path: "\(path)[\(index)]", key: key, inArray: true, depth: depth + 1) }
        } else {
            let scalar: Value
            if let text = value as? String {
                scalar = .string(text)
            } else if value is NSNull {
                scalar = .null
            } else {
                scalar = .literal("\(value)")
            }
            fields.append(Field(path: path, key: key, value: scalar, volatile: Self.isVolatile(key: key, value: scalar), inArray: inArray))
        }
    }

    /// An id, a date or time, a token, a URI (which carries ids), or a value that looks like one of them.
    package static func isVolatile(key: String, value: Value) -> Bool {
        let lowered = key.lowercased()
        if lowered == "id" || key.hasSuffix("Id") || key.hasSuffix("ID") || lowered.hasSuffix("_id") || lowered.hasSuffix("-id") { return true }
        if ["date", "time", "token", "etag", "uri", "url", "nonce", "expires", "created", "modified", "stamp"].contains(where: {
            lowered.contains($0)
        })
            || ["jti", "iat", "exp", "nbf"].contains(lowered)
        {
            return true
        }
        guard case .string(let text) = value else { return false }
        return text.hasPrefix("/Date(") || (try? Regex("^[0-9a-fA-F-]{16,}$").wholeMatch(in: text)) != nil
            || (try? Regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T").firstMatch(in: text)) != nil
    }
}

/// A regular expression that matches `text` literally (as `expect … matches` reads it).
package func regexEscaped(_ text: String) -> String {
    var out = ""
    for character in text {
        if "\\^$.|?*+()[]{}/".contains(character) { out.append("\\") }
        out.append(character)
    }
    return out
}
