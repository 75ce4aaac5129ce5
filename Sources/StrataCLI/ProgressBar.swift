#if CLI
    import Foundation

    /// When to draw progress bars on standard error.
    enum ProgressMode: String, CaseIterable {
        /// When standard error is a terminal and the run has taken over half a second.
        case auto
        case always
        case never
    }

    /// A one-line bar on standard error, redrawn in place (`\r`) at most ten times a second:
    /// `verify [##########----------]  50%  1,500/3,000 rows`.
    final class ProgressBar {
        private let label: String
        private let unit: String
        private let isShown: Bool
        private let delay: Duration
        private let started = ContinuousClock.now
        private var lastDrawn: ContinuousClock.Instant?
        private var hasDrawn = false
        private let lock = NSLock()

        init(_ label: String, unit: String, mode: ProgressMode) {
            self.label = label
            self.unit = unit
            switch mode {
            case .always: (isShown, delay) = (true, .zero)
            case .never: (isShown, delay) = (false, .zero)
            case .auto: (isShown, delay) = (isatty(STDERR_FILENO) == 1, .milliseconds(500))
            }
        }

        /// Redraws the bar for `done` out of `total` (throttled; may be called from any thread).
        func update(_ done: Int, of total: Int) {
            guard isShown else { return }
            lock.withLock {
                let now = ContinuousClock.now
                guard now - started >= delay else { return }
                if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
                lastDrawn = now
                draw(done, total)
            }
        }

        /// Draws the bar full and ends its line, if it was drawn at all.
        func finish(_ total: Int) {
            guard isShown else { return }
            lock.withLock {
                guard hasDrawn || delay == .zero else { return }
                draw(total, total)
                FileHandle.standardError.write(Data("\n".utf8))
                hasDrawn = false
            }
        }

        private func draw(_ done: Int, _ total: Int) {
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
            let width = 30
            let filled = Int((fraction * Double(width)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
            let line = "\r\(label) [\(bar)] \(percent)%  \(Output.grouped(done))/\(Output.grouped(total)) \(unit)"
            FileHandle.standardError.write(Data(line.utf8))
            hasDrawn = true
        }
    }

    extension String {
        func leftPadded(to width: Int) -> String {
            count >= width ? self : String(repeating: " ", count: width - count) + self
        }

        func rightPadded(to width: Int) -> String {
            count >= width ? self : self + String(repeating: " ", count: width - count)
        }
    }
#endif
