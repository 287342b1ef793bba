/// Zeller and Hildebrandt's ddmin: the smallest subset (1-minimal) of `items` for which `fails` holds.
public enum DeltaDebugging {
    /// - parameters:
    ///   - items: a list `fails` holds for; order is kept in every subset tried and in the result.
    ///   - fails: whether a subset still shows the failure (called once per subset tried).
    /// - returns: a subset that fails and from which no single item can be removed without the failure going away;
    ///   empty if even the empty list fails.
    public static func minimise<T>(_ items: [T], fails: ([T]) -> Bool) -> [T] {
        var current = items
        var granularity = 2
        while current.count >= 2 {
            let chunks = split(current, into: granularity)
            var reduced = false
            // A chunk alone fails: keep only it.
            for chunk in chunks where fails(chunk) {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced, granularity > 2 || chunks.count > 2 {
                // Without one chunk it still fails: drop that chunk.
                for index in chunks.indices {
                    let complement = chunks.enumerated().filter { $0.offset != index }.flatMap(\.element)
                    if fails(complement) {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                guard granularity < current.count else { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        if current.count == 1, fails([]) { return [] }
        return current
    }

    private static func split<T>(_ items: [T], into parts: Int) -> [[T]] {
        var chunks: [[T]] = []
        var start = 0
        for part in 0..<parts {
            let size = (items.count - start) / (parts - part)
            chunks.append(Array(items[start..<(start + size)]))
            start += size
        }
        return chunks.filter { !$0.isEmpty }
    }
}
