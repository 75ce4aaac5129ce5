#if CLI
    import Foundation

    /// Buffered standard output (dumps write many small pieces) and unbuffered standard error.
    enum Output {
        nonisolated(unsafe) private static var buffer: [UInt8] = []

        /// Appends `text` to standard output, flushing every 64 KiB.
        static func write(_ text: String) {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 { flush() }
        }

        static func line(_ text: String = "") {
            write(text + "\n")
        }

        static func flush() {
            guard !buffer.isEmpty else { return }
            FileHandle.standardOutput.write(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes one line on standard error at once (after whatever standard output holds).
        static func error(_ text: String) {
            flush()
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }

        /// `1,234,567`.
        static func grouped(_ value: Int) -> String {
            let digits = String(value.magnitude)
            var result = ""
            for (position, digit) in digits.enumerated() {
                if position > 0, (digits.count - position) % 3 == 0 { result.append(",") }
                result.append(digit)
            }
            return value < 0 ? "-" + result : result
        }
    }
#endif
