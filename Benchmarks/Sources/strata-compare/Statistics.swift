import Foundation

/// Medians and ranges of a few samples.
struct Samples {
    var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

func formatCount(_ value: Double) -> String {
    switch value {
    case 1e6...: String(format: "%.2fM", value / 1e6)
    case 1e3...: String(format: "%.1fk", value / 1e3)
    default: String(format: "%.0f", value)
    }
}

func formatMilliseconds(_ seconds: Double) -> String {
    seconds >= 1 ? String(format: "%.0f", seconds * 1000) : String(format: "%.1f", seconds * 1000)
}
