import Foundation

extension Store {
    /// The file's size and use, and the snapshots that pin old versions (which keeps the file from
    /// reusing the pages later commits freed).
    public struct Diagnostics: Sendable, CustomStringConvertible {
        /// A reader slot in use, in any process.
        public struct Reader: Sendable, Equatable {
            /// The process holding the slot.
            public let processID: Int32
            /// The thread that took the slot (LMDB's `pthread_t` value).
            public let thread: UInt
            /// The version its snapshot shows; nil for a slot kept between reads.
            public let version: Int?
        }

        /// A frozen snapshot of this process.
        public struct FrozenSnapshot: Sendable, Equatable {
            /// The version it shows.
            public let version: Int
            /// How long it has existed.
            public let age: Duration
        }

        /// The size of the file.
        public let fileBytes: Int
        /// Bytes of the pages in use (the rest is free for later commits to reuse).
        public let usedBytes: Int
        /// The newest committed version.
        public let latestVersion: Int
        /// Every reader slot in use, in any process.
        public let readers: [Reader]
        /// This process's frozen snapshots.
        public let frozenSnapshots: [FrozenSnapshot]
        /// The columns this process keeps copied in memory for repeated first pages, and the bytes
        /// they hold (`Store.Configuration.columnCopyLimit`).
        public let columnCopies: (count: Int, bytes: Int)

        /// The oldest version a reader still shows: pages freed after it cannot be reused yet.
        public var oldestPinnedVersion: Int? { readers.compactMap(\.version).min() }

        /// Several lines, naming what pins the oldest version.
        public var description: String {
            var lines = [
                "file \(fileBytes) bytes, \(usedBytes) used; latest version \(latestVersion)",
                "oldest pinned version: \(oldestPinnedVersion.map(String.init) ?? "none")",
            ]
            let ownProcess = getpid()
            for reader in readers {
                guard let version = reader.version else { continue }
                let frozen = reader.processID == ownProcess && frozenSnapshots.contains { $0.version == version }
                let who = frozen ? "a frozen snapshot of this process" : "a Store's snapshot or a long read"
                lines.append(
                    "  version \(version): process \(reader.processID), thread \(String(reader.thread, radix: 16)): \(who)"
                        + (version < latestVersion ? ", \(latestVersion - version) behind" : ""))
            }
            for snapshot in frozenSnapshots {
                lines.append("  frozen snapshot of version \(snapshot.version), \(snapshot.age) old")
            }
            if columnCopies.count > 0 {
                lines.append("column copies: \(columnCopies.count), \(columnCopies.bytes) bytes")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// What the file holds and who pins old versions of it.
    ///
    /// ```swift
    /// let report = try store.diagnostics()
    /// if let oldest = report.oldestPinnedVersion, report.latestVersion - oldest > 1000 { print(report) }
    /// ```
    /// - Throws: `.wrongThread`, `.fileAccess`, `.storage`.
    public func diagnostics() throws(StoreError) -> Diagnostics {
        try core.checkConfined()
        return try Diagnostics(core.environment)
    }
}

extension Store.Diagnostics {
    init(_ environment: Environment) throws(StoreError) {
        let shared = SharedFile.of(environment)
        let usage = try StoreError.mapping { try environment.usage() }
        let now = ContinuousClock.now
        self.init(
            fileBytes: usage.totalBytes, usedBytes: usage.usedBytes,
            latestVersion: try StoreError.mapping { try environment.latestVersion() },
            readers: environment.readers().map {
                Reader(processID: $0.processID, thread: $0.thread, version: $0.version)
            },
            frozenSnapshots: shared.frozenSnapshots.withLock { Array($0.values) }.map {
                FrozenSnapshot(version: $0.version, age: now - $0.created)
            }.sorted { $0.version < $1.version },
            columnCopies: shared.columnCopies.usage)
    }
}

extension Store {
    /// Whether anything of this process holds the file at `path` open (a Store, a frozen snapshot, a
    /// `DynamicStore`): what a test fixture checks at its teardown.
    ///
    /// - Throws: `.fileAccess` when the path's directory cannot be resolved.
    @_spi(Testing)
    public static func _isOpenInThisProcess(path: String) throws(StoreError) -> Bool {
        let canonical = try StoreError.mapping { try EnvironmentRegistry.canonicalPath(path) }
        return EnvironmentRegistry.shared.isOpen(canonical)
    }

    /// The version this Store's snapshot shows: what the multi-process stress test checks never goes
    /// down.
    ///
    /// - Throws: `.wrongThread`, `.storage`.
    @_spi(Testing)
    public func _snapshotVersion() throws(StoreError) -> Int {
        try core.checkConfined()
        return try core.version()
    }
}
