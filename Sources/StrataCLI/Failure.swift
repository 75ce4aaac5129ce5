#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// How `strata` ends when it cannot do what was asked: one line on stderr, and an exit status that
    /// says why (see the root command's help).
    enum Failure {
        static let damaged = ExitCode(1)
        static let failed = ExitCode(2)

        /// Writes `strata: <path>: <message>` on stderr and returns the exit code for `error`.
        static func report(_ error: StoreError, path: String) -> ExitCode {
            let message = error.localizedDescription
            Output.error("strata: " + (message.contains(path) ? message : "\(path): \(message)"))
            if case .corrupted = error { return damaged }
            return failed
        }
    }

    /// Runs a command's body on the file at `path`, turning a `StoreError` into a reported exit code.
    func reportingFailures<R>(of path: String, _ body: () throws(StoreError) -> R) throws(ExitCode) -> R {
        do {
            return try body()
        } catch {
            throw Failure.report(error, path: path)
        }
    }

    /// Opens `path` for a command (with the key of `--key-file`, for an encrypted file), turning
    /// failures into a reported exit code.
    func openStore(_ path: String, key: KeyFileOption) throws(ExitCode) -> DynamicStore {
        let encryptionKey = try key.read()
        return try reportingFailures(of: path) { () throws(StoreError) in
            try DynamicStore(path: path, encryptionKey: encryptionKey)
        }
    }

    /// `--key-file PATH`, which every command takes: the key of an encrypted store.
    struct KeyFileOption: ParsableArguments {
        @Option(
            name: .customLong("key-file"),
            help: "A file holding the 64-byte key of an encrypted store: its 64 bytes, or 128 hex digits.")
        var keyFile: String?

        /// The key in the file, if one was named.
        func read() throws(ExitCode) -> Data? {
            guard let keyFile else { return nil }
            guard let contents = FileManager.default.contents(atPath: keyFile) else {
                Output.error("strata: cannot read the key file \(keyFile)")
                throw Failure.failed
            }
            if contents.count == 64 { return contents }
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            var bytes: [UInt8] = []
            var digits = text.makeIterator()
            while let high = digits.next(), let low = digits.next(), let byte = UInt8(String([high, low]), radix: 16) {
                bytes.append(byte)
            }
            guard text.count == 128, bytes.count == 64 else {
                Output.error("strata: the key file \(keyFile) holds neither 64 bytes nor 128 hex digits")
                throw Failure.failed
            }
            return Data(bytes)
        }
    }
#endif
