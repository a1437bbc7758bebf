import Foundation

/// The CPU time the hypervisor gave to other guests (`steal` in `/proc/stat`), which makes a
/// shared machine's rounds uneven: reported with each line, so that a noisy run shows as one.
enum StolenTime {
    struct Reading {
        let steal: Double
        let total: Double
    }

    /// The machine's stolen and total CPU time so far, in clock ticks; `nil` where `/proc/stat`
    /// does not exist.
    static func now() -> Reading? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        // user nice system idle iowait irq softirq steal [guest guest_nice, already in user]
        return Reading(steal: ticks[7], total: ticks[0..<8].reduce(0, +))
    }

    /// " | stolen N%": the share of the machine's CPU time stolen since `start`, or "".
    static func since(_ start: Reading?) -> String {
        guard let start, let end = now(), end.total > start.total else { return "" }
        return String(format: " | stolen %.1f%%", (end.steal - start.steal) / (end.total - start.total) * 100)
    }
}
