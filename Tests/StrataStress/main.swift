import Foundation
import Strata
import StrataTestModels

// A helper process for the reliability tests (Tests/StrataTests/ReliabilityTests.swift): it writes
// and reports on stdout, and the test kills it or waits for it.
//
//   strata-stress crash-writer PATH full|nosync   numbered transactions forever; "ack N" after each commit
//   strata-stress add-range PATH FIRST COUNT        adds ProcessEntry FIRST..<FIRST+COUNT, 100 per write
//   strata-stress hold-reader PATH                  opens a snapshot, says "ready", sleeps until killed
//   strata-stress check PATH                        opens a (possibly damaged) file, verifies, reads every
//                                                   row; says "ok N" or "error: …" (a crash is the test's finding)

/// Writes a line to stdout at once (a write call, no buffer): the test reads acks as they come.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("strata-stress: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: strata-stress crash-writer|add-range|hold-reader PATH …") }
let path = arguments[2]

func run() throws {
    switch arguments[1] {
    case "crash-writer":
        let durability: Store.Durability = arguments.count > 3 && arguments[3] == "nosync" ? .noSync : .full
        let store = try Store(configuration: reliabilityConfiguration(path: path, durability: durability))
        var batch = (store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0) + 1
        while true {
            try store.write {
                for index in 0..<CrashEntry.perBatch { try store.add(CrashEntry(batch: batch, index: index)) }
                let counter = CrashCounter()
                counter.lastBatch = batch
                try store.add(counter, update: .modified)
            }
            say("ack \(batch)")
            batch += 1
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
    case "hold-reader":
        let store = try Store(configuration: reliabilityConfiguration(path: path))
        _ = store.objects(CrashEntry.self).count  // takes a reader slot and keeps it
        say("ready")
        while true { sleep(60) }
    case "check":
        do {
            let store = try Store(configuration: reliabilityConfiguration(path: path))
            try store.verify()  // every row decodes: the reads below cannot meet a damaged row
            var bytes = 0
            for entry in store.objects(CrashEntry.self) { bytes += entry.payload.count + entry.batch }
            say("ok \(store.objects(CrashEntry.self).count) \(bytes)")
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
