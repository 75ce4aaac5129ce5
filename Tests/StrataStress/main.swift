import Foundation
import Strata
import StrataTestModels

// A helper process for the reliability tests (Tests/StrataTests/ReliabilityTests.swift): it writes
// and reports on stdout, and the test kills it or waits for it.
//
//   strata-stress crash-writer PATH full|nosync   numbered transactions forever; "ack N" after each commit
//   strata-stress group-writer PATH [COUNT]         8 actors, asyncWrites of one ProcessEntry each, COUNT each or
//                                                   forever (they commit in groups); "ack ID" after each returns
//   strata-stress group-check PATH                  opens a file rebuilt after a simulated power cut; says
//                                                   "ok ID ID …" (the ProcessEntry ids), "bad: …" or "error: …"
//   strata-stress add-range PATH FIRST COUNT        adds ProcessEntry FIRST..<FIRST+COUNT, 100 per write
//   strata-stress delete-range PATH FIRST COUNT     deletes ProcessEntry FIRST..<FIRST+COUNT in one write
//   strata-stress retitle PATH ID TITLE             sets SharedNote ID's title (adding it) in one write; "done"
//                                                   (a file of SharedNote only)
//   strata-stress stress-writer PATH WRITER SECONDS  adds ProcessEntry in writes of 100 for SECONDS; "done N"
//   strata-stress stress-reader PATH SECONDS        refreshes and checks versions, counts and its reader slot; "ok N"
//   strata-stress stress-opener PATH SECONDS        opens and closes Stores of the file for SECONDS; "ok N"
//   strata-stress grow PATH                         adds ProcessEntry 1, 2, … one per write, forever; "ack N" after each
//   strata-stress hold-reader PATH                  opens a snapshot, says "ready", sleeps until killed
//   strata-stress check PATH                        opens a (possibly damaged) file and reads every object and
//                                                   property, as an app would (no verify); says "ok N DIGEST"
//                                                   or "error: …" (a crash or a trap is the test's finding)
//   strata-stress power-writer PATH COUNT full|nometasync|nosync   COUNT numbered transactions, "ack N" after each
//   strata-stress power-check PATH                  opens a file rebuilt after a simulated power cut; says
//                                                   "ok LASTBATCH", "bad: …" (partial or altered) or "error: …"
//   strata-stress salvage DAMAGED NEW               Store.salvage; says "salvaged N lost K ranges R" or "error: …"

/// Writes a line to stdout at once (a write call, no buffer): the test reads acks as they come.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}

/// FNV-1a over every value read: the same file read twice gives the same digest, and any value read
/// differently changes it.
struct ValueDigest {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }

    mutating func add(_ integer: Int) {
        withUnsafeBytes(of: integer.littleEndian) { add($0) }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("strata-stress: \(message)\n".utf8))
    exit(2)
}

/// Commits numbered transactions after the store's last one (`count` of them, or forever), each
/// `CrashEntry.perBatch` entries and the counter, and says "ack N" after each commit returns.
func commitBatches(to store: Store, count: Int?) throws {
    let first = (store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0) + 1
    var batch = first
    while count.map({ batch < first + $0 }) ?? true {
        try store.write {
            for index in 0..<CrashEntry.perBatch { try store.add(CrashEntry(batch: batch, index: index)) }
            let counter = CrashCounter()
            counter.lastBatch = batch
            try store.add(counter, update: .modified)
        }
        say("ack \(batch)")
        batch += 1
    }
}

/// One of the group writer's actors: adds ProcessEntry objects numbered from `writer` × 1,000,000
/// on, one per `asyncWrite`, after its last one in the file, and says "ack ID" after each returns.
actor GroupWriter {
    private var store: Store?
    let writer: Int

    init(writer: Int) { self.writer = writer }

    /// `count` writes, or forever.
    func run(path: String, count: Int? = nil) async throws {
        let store = try await Store(configuration: reliabilityConfiguration(path: path), actor: self)
        self.store = store
        let writer = writer
        let first =
            (store.objects(ProcessEntry.self).where { $0.writer == writer }.max(of: \.id) ?? writer * 1_000_000) + 1
        var id = first
        while count.map({ id < first + $0 }) ?? true {
            let entry = ProcessEntry()
            entry.id = id
            entry.writer = writer
            try await store.asyncWrite { try store.add(entry) }
            say("ack \(id)")
            id += 1
        }
    }
}

/// Runs `body` to its end from the main thread, which waits (it is no thread of the task pool).
func runAsync(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {  // written before `done` is signalled, read after
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)
    }
    let outcome = Outcome()
    Task {
        do { try await body() } catch { outcome.error = error }
        outcome.done.signal()
    }
    outcome.done.wait()
    if let error = outcome.error { throw error }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: strata-stress crash-writer|add-range|hold-reader PATH …") }
let path = arguments[2]

func run() throws {
    switch arguments[1] {
    case "crash-writer":
        let durability: Store.Durability = arguments.count > 3 && arguments[3] == "nosync" ? .noSync : .full
        let store = try Store(configuration: reliabilityConfiguration(path: path, durability: durability))
        try commitBatches(to: store, count: nil)
    case "text-writer":
        // Each transaction adds three notes, rewrites two and deletes one (seeded by the batch), so the
        // full-text index's blocks are appended to, rewritten and shrunk when the kill lands.
        let store = try Store(configuration: searchReliabilityConfiguration(path: path))
        var batch = (store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0) + 1
        while true {
            var random = SystemRandomNumberGenerator()
            func text() -> String {
                (0..<Int.random(in: 3...40, using: &random)).map { _ in CrashNote.words.randomElement(using: &random)! }
                    .joined(separator: " ")
            }
            try store.write {
                for index in 0..<3 {
                    let note = CrashNote()
                    note.name = "b\(batch)-\(index)"
                    note.body = text()
                    note.embedding = (0..<8).map { _ in Float.random(in: -1...1, using: &random) }
                    try store.add(note)
                }
                let notes = store.objects(CrashNote.self)
                for _ in 0..<2 {
                    let note = notes[Int.random(in: 0..<notes.count, using: &random)]
                    note.body = text()
                    note.embedding = (0..<8).map { _ in Float.random(in: -1...1, using: &random) }
                }
                try store.delete(notes[Int.random(in: 0..<notes.count, using: &random)])
                let counter = CrashCounter()
                counter.lastBatch = batch
                try store.add(counter, update: .modified)
            }
            say("ack \(batch)")
            batch += 1
        }
    case "group-writer":
        // The file's schema first, from this thread, so that the actors only open it.
        _ = try Store(configuration: reliabilityConfiguration(path: path))
        let count = arguments.count > 3 ? Int(arguments[3]) : nil
        try runAsync {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 1...8 {
                    group.addTask { try await GroupWriter(writer: writer).run(path: path, count: count) }
                }
                try await group.waitForAll()
            }
        }
        say("done")
    case "group-check":
        // Opens a file rebuilt after a simulated power cut; lists the ProcessEntry ids it holds.
        do {
            let store = try Store(configuration: reliabilityConfiguration(path: path))
            var ids: [Int] = []
            for entry in store.objects(ProcessEntry.self) {
                guard entry.writer == entry.id / 1_000_000 else {
                    say("bad: entry \(entry.id) of writer \(entry.writer)")
                    return
                }
                ids.append(entry.id)
            }
            say("ok " + ids.map(String.init).joined(separator: " "))
        } catch {
            say("error: \(error)")
        }
    case "add-range":
        guard arguments.count == 5, let first = Int(arguments[3]), let count = Int(arguments[4]) else {
            fail("usage: strata-stress add-range PATH FIRST COUNT")
        }
        let store = try Store(configuration: reliabilityConfiguration(path: path))
        for start in stride(from: first, to: first + count, by: 100) {
            try store.write {
                for id in start..<min(start + 100, first + count) {
                    let entry = ProcessEntry()
                    entry.id = id
                    entry.writer = first
                    try store.add(entry)
                }
            }
        }
        say("done")
    case "delete-range":
        guard arguments.count == 5, let first = Int(arguments[3]), let count = Int(arguments[4]) else {
            fail("usage: strata-stress delete-range PATH FIRST COUNT")
        }
        let store = try Store(configuration: reliabilityConfiguration(path: path))
        try store.write {
            try store.delete(store.objects(ProcessEntry.self).where { $0.id >= first && $0.id < first + count })
        }
        say("done")
    case "retitle":
        guard arguments.count == 5, let id = Int(arguments[3]) else {
            fail("usage: strata-stress retitle PATH ID TITLE")
        }
        var configuration = reliabilityConfiguration(path: path)
        configuration.objectTypes = [SharedNote.self]
        let store = try Store(configuration: configuration)
        try store.write {
            if let note = store.object(ofType: SharedNote.self, forPrimaryKey: id) {
                note.title = arguments[4]
            } else {
                let note = SharedNote()
                note.id = id
                note.title = arguments[4]
                try store.add(note)
            }
        }
        say("done")
    case "stress-writer":
        guard arguments.count == 5, let writer = Int(arguments[3]), let seconds = Double(arguments[4]) else {
            fail("usage: strata-stress stress-writer PATH WRITER SECONDS")
        }
        try stressWriter(path: path, writer: writer, seconds: seconds)
    case "stress-reader":
        guard arguments.count == 4, let seconds = Double(arguments[3]) else {
            fail("usage: strata-stress stress-reader PATH SECONDS")
        }
        try stressReader(path: path, seconds: seconds)
    case "stress-opener":
        guard arguments.count == 4, let seconds = Double(arguments[3]) else {
            fail("usage: strata-stress stress-opener PATH SECONDS")
        }
        try stressOpener(path: path, seconds: seconds)
    case "grow":
        let store = try Store(configuration: reliabilityConfiguration(path: path))
        var id = (store.objects(ProcessEntry.self).max(of: \.id) ?? 0) + 1
        while true {
            let entry = ProcessEntry()
            entry.id = id
            try store.write { try store.add(entry) }
            say("ack \(id)")
            id += 1
        }
    case "hold-reader":
        let store = try Store(configuration: reliabilityConfiguration(path: path))
        _ = store.objects(CrashEntry.self).count  // takes a reader slot and keeps it
        say("ready")
        while true { sleep(60) }
    case "check":
        // As an app would: open, then read every object and every property. No verify() first:
        // damage present in the file must be found by opening, never by a crash or a trap later.
        do {
            var configuration = reliabilityConfiguration(path: path)
            // STRATA_OPENING_CHECK=minimal: what the trials give without the full check (Docs/Reliability.md).
            if ProcessInfo.processInfo.environment["STRATA_OPENING_CHECK"] == "minimal" {
                configuration.openingCheck = .minimal
            }
            let store = try Store(configuration: configuration)
            var digest = ValueDigest()
            var entries = 0
            for entry in store.objects(CrashEntry.self) {
                digest.add(entry.id)
                digest.add(entry.batch)
                digest.add(entry.payload)
                entries += 1
            }
            for counter in store.objects(CrashCounter.self) {
                digest.add(counter.id)
                digest.add(counter.lastBatch)
            }
            for entry in store.objects(ProcessEntry.self) {
                digest.add(entry.id)
                digest.add(entry.writer)
            }
            say("ok \(entries) \(digest.value)")
        } catch {
            say("error: \(error)")
        }
    case "power-writer":
        guard arguments.count == 5, let count = Int(arguments[3]) else {
            fail("usage: strata-stress power-writer PATH COUNT full|nometasync|nosync")
        }
        let durability: Store.Durability =
            switch arguments[4] {
            case "nosync": .noSync
            case "nometasync": .noMetaSync
            default: .full
            }
        let store = try Store(configuration: reliabilityConfiguration(path: path, durability: durability))
        try commitBatches(to: store, count: count)
    case "power-check":
        // Opens a file rebuilt as a power cut left it and checks that it holds whole transactions:
        // every entry of every batch up to the counter's, exact, and nothing else.
        do {
            let store = try Store(configuration: reliabilityConfiguration(path: path))
            // A KNOWN GAP, encrypted files only: after a .noSync cut, opening (its full check) once
            // missed a damaged key entry of a sealed block table ("a key entry names a block that
            // does not hold its key"), which the first read then found and trapped on (CI,
            // 2026-11-30). Until the opening check covers key entries (Docs/Encryption.md), this
            // check finds such damage with verify() first, as a typed error; plain files keep the
            // stronger contract (opening finds it).
            if reliabilityEncryptionKey != nil { try store.verify() }
            let last = store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0
            var entries = 0
            for entry in store.objects(CrashEntry.self) {
                entries += 1
                guard entry.batch == entry.id / CrashEntry.perBatch, entry.batch <= last,
                    entry.payload == CrashEntry.payload(for: entry.id)
                else {
                    say("bad: entry \(entry.id) of batch \(entry.batch) (last batch \(last))")
                    return
                }
            }
            guard entries == last * CrashEntry.perBatch else {
                say("bad: \(entries) entries for \(last) batches")
                return
            }
            say("ok \(last)")
        } catch {
            say("error: \(error)")
        }
    case "salvage":
        guard arguments.count >= 4 else { fail("usage: strata-stress salvage DAMAGED NEW") }
        do {
            let report = try Store.salvage(from: URL(fileURLWithPath: path), to: URL(fileURLWithPath: arguments[3]))
            let lost = report.types.reduce(0) { $0 + $1.lostKeys.count }
            let ranges = report.types.reduce(0) { $0 + $1.lostRanges.count }
            say("salvaged \(report.savedRows) lost \(lost) ranges \(ranges)")
        } catch {
            say("error: \(error)")
        }
    default:
        fail("unknown command \(arguments[1])")
    }
}

do {
    try run()
} catch {
    fail("\(error)")
}
