import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Processes sharing a file for minutes (Docs/Reliability.md): 4 writers, a reader that checks that
/// versions and counts never go down and that its reader slot stays listed, and a process that opens
/// and closes Stores of the file in a loop, with both cores loaded. Not in `make test` (it takes
/// `STRATA_STRESS_SECONDS`, 600 for the figures in the docs): `make stress`.
@Suite(.fixtureChecks, .offThePool) struct MultiProcessStressTests {
    static let seconds = ProcessInfo.processInfo.environment["STRATA_STRESS_SECONDS"].flatMap(Double.init)

    @Test(.enabled(if: seconds != nil, "set STRATA_STRESS_SECONDS (make stress)"))
    func writersReaderAndOpenerShareAFile() throws {
        let seconds = try #require(Self.seconds)
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        _ = try Store(configuration: reliabilityConfiguration(path: fixture.path))  // the file exists first
        let duration = String(seconds)
        let writers = try (1...4).map { try StressProcess(["stress-writer", fixture.path, "\($0)", duration]) }
        let reader = try StressProcess(["stress-reader", fixture.path, duration])
        let opener = try StressProcess(["stress-opener", fixture.path, duration])
        let load = CPULoad(threads: 2)  // both cores busy as well
        defer { load.stop() }

        let added = writers.map { writer -> Int in
            let line = writer.remainingLines().last ?? ""
            let (status, stderr) = writer.wait()
            #expect(status == 0, "\(stderr)")
            return line.hasPrefix("done ") ? Int(line.dropFirst(5)) ?? -1 : -1
        }
        let readerLine = reader.remainingLines().last ?? ""
        #expect(reader.wait().status == 0)
        let openerLine = opener.remainingLines().last ?? ""
        #expect(opener.wait().status == 0)
        load.stop()

        #expect(readerLine.hasPrefix("ok "), "\(readerLine)")
        #expect(openerLine.hasPrefix("ok "), "\(openerLine)")
        let store = try Store(configuration: reliabilityConfiguration(path: fixture.path))
        let total = store.objects(ProcessEntry.self).count
        #expect(!added.contains(-1))
        #expect(total == added.reduce(0, +))
        for writer in 1...4 {
            #expect(store.objects(ProcessEntry.self).where { $0.writer == writer }.count == added[writer - 1])
        }
        try store.verify()
        // The figures for Docs/Reliability.md.
        print("stress: \(Int(seconds)) s, writes \(added) (total \(total)), reader \(readerLine), opener \(openerLine)")
    }
}

/// Threads that spin until stopped.
final class CPULoad: Sendable {
    private let running = Locked(true)

    init(threads: Int) {
        for _ in 0..<threads {
            Thread { [running] in
                var spins = 0
                while running.withLock({ $0 }) {
                    for _ in 0..<10_000 { spins &+= 1 }
                }
                _ = spins
            }.start()
        }
    }

    func stop() {
        running.withLock { $0 = false }
    }
}
