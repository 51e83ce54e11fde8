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

/// Collects the first `count` elements of a stream, or those that came within
/// `limit`: a lost element fails the test there, with what did come, instead
/// of holding it until the suite's time limit.
func first<Element: Sendable>(_ count: Int, of stream: AsyncStream<Element>, within limit: Duration) async -> [Element] {
    await withTaskGroup(of: [Element]?.self) { group in
        group.addTask { await first(count, of: stream) }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let winner = await group.next() ?? nil
        group.cancelAll()
        if let winner { return winner }
        // The limit passed: the collector ends on cancellation with what it has.
        while let result = await group.next() {
            if let result { return result }
        }
        return []
    }
}
