import MarkupEscaping

/// Draws folded stacks as a flame graph: one SVG file, self-contained (no script, no font or style from outside),
/// the root at the bottom, each frame as wide as its share of the samples, callees above their callers, siblings in
/// alphabetical order (so the same samples always draw the same picture). Hovering a frame shows its name, samples
/// and share (its `<title>`).
public struct FlameGraphSVG {
    public var title: String
    /// A line under the title: what was recorded, how.
    public var subtitle: String
    /// The drawing's width in pixels.
    public var width: Double = 1200
    /// Frames narrower than this many pixels are left out (with everything above them), as flamegraph.pl does with
    /// 0.1; half a pixel keeps single samples of a few thousand from making the drawing tall with noise.
    public var minimumFrameWidth: Double = 0.5

    static let frameHeight = 16.0
    static let fontSize = 12.0
    /// The width of one character of the monospace font at ``fontSize``, for cutting labels to fit.
    static let characterWidth = 7.2
    static let margin = 10.0
    static let top = 56.0

    public init(title: String, subtitle: String = "") {
        self.title = title
        self.subtitle = subtitle
    }

    /// One frame as drawn.
    public struct Frame: Equatable, Sendable {
        public var name: String
        public var samples: Int
        /// Samples before this frame among its row (its left edge, in samples).
        public var start: Int
        /// 0 for the root ("all").
        public var depth: Int
    }

    /// Every frame of `stacks` under a root named "all", depth first, siblings in name order.
    public static func frames(_ stacks: FoldedStacks) -> [Frame] {
        let root = Node()
        for (stack, count) in stacks.samples { root.add(stack[...], count) }
        var frames: [Frame] = []
        func walk(_ node: Node, name: String, start: Int, depth: Int) {
            frames.append(Frame(name: name, samples: node.samples, start: start, depth: depth))
            var offset = start
            for (childName, child) in node.children.sorted(by: { $0.key < $1.key }) {
                walk(child, name: childName, start: offset, depth: depth + 1)
                offset += child.samples
            }
        }
        walk(root, name: "all", start: 0, depth: 0)
        return frames
    }

    /// The SVG document.
    public func render(_ stacks: FoldedStacks) -> String {
        let total = max(stacks.total, 1)
        let scale = (width - 2 * Self.margin) / Double(total)
        let drawn = Self.frames(stacks).filter { Double($0.samples) * scale >= minimumFrameWidth }
        let maxDepth = drawn.map(\.depth).max() ?? 0
        let height = Self.top + Double(maxDepth + 1) * Self.frameHeight + Self.margin + 18
        var svg = """
            <?xml version="1.0" encoding="UTF-8" standalone="no"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(Self.number(width))" height="\(Self.number(height))" \
            viewBox="0 0 \(Self.number(width)) \(Self.number(height))">
            <style>text { font-family: monospace; font-size: \(Self.number(Self.fontSize))px; fill: #000; } \
            .title { font-size: 17px; } .frame:hover rect { stroke: #000; stroke-width: 0.5; }</style>
            <rect x="0" y="0" width="100%" height="100%" fill="#f8f8f0"/>
            <text class="title" x="\(Self.number(width / 2))" y="24" text-anchor="middle">\(Self.escaped(title))</text>
            <text x="\(Self.number(width / 2))" y="42" text-anchor="middle">\(Self.escaped(subtitle))</text>

            """
        let bottom = height - Self.margin - 18
        for frame in drawn {
            let x = Self.margin + Double(frame.start) * scale
            let frameWidth = Double(frame.samples) * scale
            let y = bottom - Double(frame.depth + 1) * Self.frameHeight
            let share = Double(frame.samples) * 100 / Double(total)
            let plural = frame.samples == 1 ? "sample" : "samples"
            svg += "<g class=\"frame\"><title>\(Self.escaped(frame.name)) (\(frame.samples) \(plural), \(Self.percent(share))%)</title>"
            svg += "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(frameWidth))\" "
            svg += "height=\"\(Self.number(Self.frameHeight - 1))\" fill=\"\(Self.color(frame.name))\" rx=\"2\"/>"
            if let label = Self.label(frame.name, width: frameWidth) {
                svg += "<text x=\"\(Self.number(x + 3))\" y=\"\(Self.number(y + Self.frameHeight - 4.5))\">\(Self.escaped(label))</text>"
            }
            svg += "</g>\n"
        }
        svg +=
            "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(height - 8))\">\(total) samples; hover a frame for its name and share</text>\n"
        svg += "</svg>\n"
        return svg
    }

    /// The name cut to the frame's width (with ".." when cut), or nil when not even three characters fit.
    static func label(_ name: String, width: Double) -> String? {
        let fits = Int((width - 6) / characterWidth)
        guard fits >= 3 else { return nil }
        return name.count <= fits ? name : String(name.prefix(fits - 2)) + ".."
    }

    /// A warm colour from the name, the same for the same name in every drawing (FNV-1a of its UTF-8).
    static func color(_ name: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let red = 205 + Int(hash % 51)
        let green = Int((hash >> 8) % 231)
        let blue = Int((hash >> 16) % 56)
        return "rgb(\(red),\(green),\(blue))"
    }

    private static func escaped(_ text: String) -> String { MarkupText.escaped(text, .minimal) }

    /// Two decimals at most, no trailing zeros: coordinates stay short and the same for the same input.
    static func number(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = hundredths / 100
        let fraction = abs(hundredths % 100)
        if fraction == 0 { return "\(whole)" }
        let sign = hundredths < 0 && whole == 0 ? "-" : ""
        let digits = fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)")
        return "\(sign)\(whole).\(digits)"
    }

    private static func percent(_ share: Double) -> String { number(share) }

    /// The call tree the frames are laid out from.
    private final class Node {
        var samples = 0
        var children: [String: Node] = [:]

        func add(_ stack: ArraySlice<String>, _ count: Int) {
            samples += count
            guard let first = stack.first else { return }
            let child = children[first] ?? Node()
            children[first] = child
            child.add(stack.dropFirst(), count)
        }
    }
}
