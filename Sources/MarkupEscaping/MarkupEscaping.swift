/// Text made safe for an XML or HTML attribute or element (JUnit reports, the timeline page): the five special
/// characters as entities, and line breaks as `&#10;` so an attribute keeps them.
public func xmlEscape(_ text: String) -> String {
    var out = ""
    for c in text {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        case "\n": out += "&#10;"
        default: out.append(c)
        }
    }
    return out
}
