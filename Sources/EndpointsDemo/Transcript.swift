import Foundation

/// Writes the tour as a readable transcript: numbered sections, and lines stamped with the time
/// since the section started.
final class Transcript: @unchecked Sendable {
    // @unchecked Sendable: `sectionStart` and `number` are read and written only while holding `lock`.
    private let lock = NSLock()
    private let output: @Sendable (String) -> Void
    private var sectionStart = DispatchTime.now()
    private var number = 0

    init(output: @escaping @Sendable (String) -> Void) {
        self.output = output
    }

    /// Starts a numbered section.
    func section(_ title: String) {
        let heading = locked { () -> String in
            number += 1
            sectionStart = DispatchTime.now()
            return "\n\(number). \(title)"
        }
        output(heading)
    }

    /// A line stamped with the milliseconds since the section started.
    func line(_ text: String) {
        let elapsed = locked { Double(DispatchTime.now().uptimeNanoseconds - sectionStart.uptimeNanoseconds) / 1e6 }
        output(String(format: "   %6.0f ms  ", elapsed) + text)
    }

    /// An unstamped line: a note, or a log line from the middleware.
    func note(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            output("              " + line)
        }
    }

    /// A line outside any section.
    func plain(_ text: String) {
        output(text)
    }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
