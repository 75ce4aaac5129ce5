import Foundation
@_spi(Testing) import Strata
import StrataTestModels

#if canImport(Glibc)
    import Glibc
#endif

// The processes of the shared-file stress test (MultiProcessStressTests): writers, a reader that
// checks what it sees, and a process that opens and closes Stores of the file, all for `seconds`.

/// Adds ProcessEntry objects with ids from `writer` × 10,000,000 on, 100 per write, for `seconds`;
/// says "done N" (the number added).
func stressWriter(path: String, writer: Int, seconds: Double) throws {
    let store = try Store(configuration: reliabilityConfiguration(path: path))
    let deadline = Date().addingTimeInterval(seconds)
    var next = writer * 10_000_000
    while Date() < deadline {
        try store.write {
            for id in next..<next + 100 {
                let entry = ProcessEntry()
                entry.id = id
                entry.writer = writer
                try store.add(entry)
            }
        }
        next += 100
    }
    say("done \(next - writer * 10_000_000)")
}

/// Moves its Store to the newest commit again and again for `seconds` and checks, each time, that
/// the version and the count never go down, that the count is a multiple of 100 (writes are seen
/// whole), and that this process's reader slot is listed while its snapshot is held. Says "ok N"
/// (checks made) or "bad: …" at the first failure.
func stressReader(path: String, seconds: Double) throws {
    let store = try Store(configuration: reliabilityConfiguration(path: path))
    let deadline = Date().addingTimeInterval(seconds)
    let me = getpid()
    var seen = (version: 0, count: 0)
    var checks = 0
    while Date() < deadline {
        try store.refresh()
        let version = try store._snapshotVersion()
        let count = store.objects(ProcessEntry.self).count
        let diagnostics = try store.diagnostics()
        guard version >= seen.version, count >= seen.count, count % 100 == 0 else {
            say("bad: version \(seen.version) count \(seen.count), then version \(version) count \(count)")
            return
        }
        guard diagnostics.readers.contains(where: { $0.processID == me && $0.version == version }) else {
            say("bad: this process's reader slot (version \(version)) is gone: \(diagnostics.readers)")
            return
        }
        seen = (version, count)
        checks += 1
    }
    say("ok \(checks) \(seen.count)")
}

/// Opens a Store of the file, reads a count, and closes it, again and again for `seconds` (each
/// close is the last of the process: the environment closes). Says "ok N" (opens).
func stressOpener(path: String, seconds: Double) throws {
    let deadline = Date().addingTimeInterval(seconds)
    var opens = 0
    while Date() < deadline {
        do {
            // The minimal opening check: a full walk of a file that grows by the second would make
            // the opens few; the writers' and reader's processes walked it at their own opening.
            var configuration = reliabilityConfiguration(path: path)
            configuration.openingCheck = .minimal
            let store = try Store(configuration: configuration)
            _ = store.objects(ProcessEntry.self).count
        }  // the last Store of the file in this process: the environment closes
        opens += 1
    }
    say("ok \(opens)")
}
