import Foundation

/// Collects the first `count` elements of a stream.
func first<Element: Sendable>(_ count: Int, of stream: AsyncStream<Element>) async -> [Element] {
    var collected: [Element] = []
    for await element in stream {
        collected.append(element)
        if collected.count == count { break }
    }
    return collected
}
