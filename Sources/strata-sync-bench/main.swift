#if Sync
    // strata-sync-bench: the sync benchmarks of Docs/Benchmarks.md, side by side in one run, against a
    // private PostgreSQL cluster this process starts and stops (`make bench-sync`).
    //
    //   S1  push of 100,000 changes (inserts, committed 1,000 per write) by StoreSync, against inserting
    //       the same rows with postgres-nio directly (the same batch size, one transaction per batch)
    //   S2  a commit on one client seen by another, both syncing in the background (median ms)
    //   S3  the outbox's cost on W2 (one object per write transaction, no sync): capture on against off
    //   S4  a new client's start from the server's 1,000,000 objects (StoreSync's bootstrap), against
    //       reading the same rows with postgres-nio and adding them with `add(contentsOf:)`
    //
    //   SOAK  1,000,000 changes (updates of 10,000 objects) pushed and pulled by two clients that ask
    //       for trims: how big `strata.changes` gets (bounded history)
    //
    //   strata-sync-bench [--scale S] [--rounds N] [--only S1|S2|S3|S4|SOAK]
    import Foundation
    import Logging
    import PostgresNIO
    import PrivatePostgres
    @_spi(StrataSync) import Strata
    import StrataSync

    final class Row: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var score: Double
        @Persisted var name: String

        convenience init(id: Int) {
            self.init()
            self.id = id
            self.score = Double(id) / 7
            self.name = "row \(id)"
        }
    }

    /// S2's object: a type with an access rule, so that the trip goes through row-level security.
    final class Note: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var score: Double
        @Persisted var ownerID: String
    }

    let noteAccess = SyncAccess(Note.self, owner: "ownerID")

    struct Options {
        var scale = 1.0
        var rounds = 3
        /// One benchmark alone (for a profiler), or all.
        var only: String?

        init(_ arguments: [String]) {
            var rest = arguments[...]
            while let name = rest.popFirst(), let value = rest.popFirst() {
                switch name {
                case "--scale": scale = Double(value) ?? scale
                case "--rounds": rounds = Int(value) ?? rounds
                case "--only": only = value.uppercased()
                default: break
                }
            }
        }
    }

    let batchSize = 2_000
    let clock = ContinuousClock()

    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-bench-\(getpid())-\(name).strata")
    }

    func removeFile(_ url: URL) {
        for suffix in ["", "-lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    func server(_ cluster: PostgresCluster, database: String) -> SyncServer {
        SyncServer(
            port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password, database: database,
            tls: .verifyFull(rootCertificates: .pemFile(cluster.certificateAuthorityFile)), pollInterval: .seconds(1),
            batchSize: batchSize)
    }

    /// S1, Strata: commits `count` inserts (1,000 per write) with capture on, then times one push of them all.
    func strataPush(_ cluster: PostgresCluster, count: Int, round: Int) async throws -> Double {
        let database = "s1_strata_\(round)"
        _ = try cluster.psql("CREATE DATABASE \(database)")
        let file = temporaryFile("s1-\(round)")
        defer { removeFile(file) }
        var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
        configuration.durability = .noSync
        let sync = try await StoreSync(
            configuration: configuration, server: server(cluster, database: database), types: [Row.self])
        try await sync.synchronize()  // the tables exist: only the push is timed
        try await Writer(configuration: configuration).insert(count: count)
        let start = clock.now
        try await sync.push()
        let elapsed = seconds(clock.now - start)
        let stored = try cluster.psql("SELECT count(*) FROM strata.\"Row\"", database: database)
        guard stored == "\(count)" else { throw BenchFailure("S1: the server holds \(stored) rows, not \(count)") }
        return Double(count) / elapsed
    }

    /// TLS as Strata's connections use it here (`.verifyFull` against the cluster's authority): both
    /// sides of S1 pay for the same encryption.
    func sameTLSAsStrata(_ cluster: PostgresCluster) throws -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(cluster.certificateAuthorityFile))
        return .require(try NIOSSLContext(configuration: configuration))
    }

    /// S1, postgres-nio directly: the same rows into a table of the same columns, `batchSize` per
    /// transaction, with one multi-row INSERT of arrays each.
    func directInsert(_ cluster: PostgresCluster, count: Int, round: Int) async throws -> Double {
        let database = "s1_direct_\(round)"
        _ = try cluster.psql("CREATE DATABASE \(database)")
        _ = try cluster.psql(
            "CREATE TABLE rows (id bigint PRIMARY KEY, score double precision NOT NULL, name text NOT NULL)",
            database: database)
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password,
            database: database, tls: try sameTLSAsStrata(cluster))
        let logger = Logger(label: "bench")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        let start = clock.now
        var next = 0
        while next < count {
            let ids = Array(next..<min(count, next + batchSize))
            let scores = ids.map { Double($0) / 7 }
            let names = ids.map { "row \($0)" }
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                """
                INSERT INTO rows (id, score, name)
                SELECT * FROM unnest(\(ids)::bigint[], \(scores)::float8[], \(names)::text[])
                """, logger: logger)
            try await connection.query("COMMIT", logger: logger)
            next += batchSize
        }
        let elapsed = seconds(clock.now - start)
        try await connection.close()
        return Double(count) / elapsed
    }

    /// The app's writes, from an actor of their own.
    actor Writer {
        private var store: Store!
        let configuration: Store.Configuration

        init(configuration: Store.Configuration) { self.configuration = configuration }

        func insert(count: Int, perWrite: Int = 1_000) async throws {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            let store = self.store!
            var next = 0
            while next < count {
                let range = next..<min(count, next + perWrite)
                try await store.asyncWrite { for id in range { try store.add(Row(id: id)) } }
                next = range.upperBound
            }
        }

        /// Adds rows read elsewhere, in one write.
        func add(_ rows: [(Int, Double, String)]) async throws {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            let store = self.store!
            try await store.asyncWrite {
                try store.add(
                    contentsOf: rows.map { id, score, name in
                        let row = Row()
                        row.id = id
                        row.score = score
                        row.name = name
                        return row
                    })
            }
        }

        /// Sets every object's score (ids below `count`), in one write.
        func updateAll(count: Int, round: Int) async throws {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            let store = self.store!
            try await store.asyncWrite {
                for row in store.objects(Row.self) where row.id < count { row.score = Double(round) }
            }
        }

        func addNote(owner: String) async throws {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            let store = self.store!
            try await store.asyncWrite {
                let note = Note()
                note.ownerID = owner
                try store.add(note)
            }
        }

        func setNoteScore(_ score: Double) async throws {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            let store = self.store!
            try await store.asyncWrite { store.object(ofType: Note.self, forPrimaryKey: 0)!.score = score }
        }

        func noteScore() async throws -> Double? {
            if store == nil { store = try await Store(configuration: configuration, actor: self) }
            _ = try store.refresh()
            return store.object(ofType: Note.self, forPrimaryKey: 0)?.score
        }
    }

    /// S4's server: `count` objects pushed by a client into a database of their own. Returns the database.
    func bootstrapSource(_ cluster: PostgresCluster, count: Int) async throws -> String {
        let database = "s4_source"
        _ = try cluster.psql("CREATE DATABASE \(database)")
        let file = temporaryFile("s4-source")
        defer { removeFile(file) }
        var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
        configuration.durability = .noSync
        let sync = try await StoreSync(
            configuration: configuration, server: server(cluster, database: database), types: [Row.self])
        try await sync.synchronize()
        try await Writer(configuration: configuration).insert(count: count, perWrite: 10_000)
        try await sync.push()
        await sync.stop()
        return database
    }

    /// S4, Strata: a new client's first synchronization, objects per second.
    func strataBootstrap(_ cluster: PostgresCluster, database: String, count: Int, round: Int) async throws -> Double {
        let file = temporaryFile("s4-strata-\(round)")
        defer { removeFile(file) }
        var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
        configuration.durability = .noSync
        let sync = try await StoreSync(
            configuration: configuration, server: server(cluster, database: database), types: [Row.self])
        let start = clock.now
        try await sync.synchronize()
        let elapsed = seconds(clock.now - start)
        await sync.stop()
        let held = try Store(configuration: configuration).objects(Row.self).count
        guard held == count else { throw BenchFailure("S4: the new client holds \(held) objects, not \(count)") }
        return Double(count) / elapsed
    }

    /// S4, directly: the same rows read with postgres-nio (streamed) and added 10,000 per write.
    func directBootstrap(_ cluster: PostgresCluster, database: String, count: Int, round: Int) async throws -> Double {
        let file = temporaryFile("s4-direct-\(round)")
        defer { removeFile(file) }
        var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
        configuration.durability = .noSync
        let loader = Writer(configuration: configuration)
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: "127.0.0.1", port: cluster.port, username: PostgresCluster.user,
                password: PostgresCluster.password, database: database, tls: try sameTLSAsStrata(cluster)),
            id: 1, logger: Logger(label: "bench"))
        let start = clock.now
        var page: [(Int, Double, String)] = []
        let rows = try await connection.query(
            "SELECT id, score, name FROM strata.\"Row\" ORDER BY id", logger: Logger(label: "bench"))
        for try await row in rows.decode((Int, Double, String).self) {
            page.append(row)
            if page.count == 10_000 {
                try await loader.add(page)
                page.removeAll(keepingCapacity: true)
            }
        }
        try await loader.add(page)
        let elapsed = seconds(clock.now - start)
        try await connection.close()
        return Double(count) / elapsed
    }

    /// SOAK: pushes `count` changes in rounds, both clients pulling after each; returns the most rows
    /// and bytes `strata.changes` held after a round, and the rows it holds at the end.
    func soak(_ cluster: PostgresCluster, count: Int) async throws -> (rows: Int, bytes: Int, last: Int) {
        let database = "soak"
        _ = try cluster.psql("CREATE DATABASE \(database)")
        var trimming = server(cluster, database: database)
        trimming.trimInterval = .zero
        var files: [URL] = []
        defer { files.forEach(removeFile) }
        func client(_ name: String) async throws -> (StoreSync, Writer) {
            let file = temporaryFile("soak-\(name)")
            files.append(file)
            var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
            configuration.durability = .noSync
            return (
                try await StoreSync(configuration: configuration, server: trimming, types: [Row.self]),
                Writer(configuration: configuration)
            )
        }
        let (writerSync, writer) = try await client("writer")
        let (readerSync, _) = try await client("reader")
        let objects = 10_000
        try await writer.insert(count: objects, perWrite: objects)
        var most = (rows: 0, bytes: 0)
        var pushed = objects
        var round = 0
        while pushed < count {
            try await writer.updateAll(count: objects, round: round)
            pushed += objects
            round += 1
            if round % 5 == 0 || pushed >= count {
                try await writerSync.synchronize()
                // Measured before the reader pulls: what it still needs is there.
                let rows = Int(try cluster.psql("SELECT count(*) FROM strata.changes", database: database)) ?? 0
                let bytes =
                    Int(try cluster.psql("SELECT pg_total_relation_size('strata.changes')", database: database)) ?? 0
                most = (max(most.rows, rows), max(most.bytes, bytes))
                try await readerSync.synchronize()
            }
        }
        try await writerSync.synchronize()
        try await readerSync.synchronize()
        let last = Int(try cluster.psql("SELECT count(*) FROM strata.changes", database: database)) ?? 0
        await writerSync.stop()
        await readerSync.stop()
        return (most.rows, most.bytes, last)
    }

    /// S2: the milliseconds from a commit on one client to the other's Store reading it.
    func commitToVisible(_ cluster: PostgresCluster, samples: Int) async throws -> [Double] {
        _ = try cluster.psql("CREATE DATABASE s2")
        let files = [temporaryFile("s2-a"), temporaryFile("s2-b"), temporaryFile("s2-admin")]
        defer { files.forEach(removeFile) }
        let configurations = files.map { file in
            var configuration = Store.Configuration(fileURL: file, objectTypes: [Note.self])
            configuration.durability = .noSync
            return configuration
        }
        // Row-level security on: the database owner makes the tables and rules, the two devices
        // connect as the user's own role.
        let admin = try await StoreSync(
            configuration: configurations[2], server: server(cluster, database: "s2"), types: [Note.self],
            access: [noteAccess])
        try await admin.push()
        _ = try cluster.psql("CREATE ROLE alice LOGIN PASSWORD 'alice' IN ROLE strata_sync_client", database: "s2")
        var user = server(cluster, database: "s2")
        user.username = "alice"
        user.password = "alice"
        let syncA = try await StoreSync(
            configuration: configurations[0], server: user, types: [Note.self], access: [noteAccess])
        let syncB = try await StoreSync(
            configuration: configurations[1], server: user, types: [Note.self], access: [noteAccess])
        let writer = Writer(configuration: configurations[0])
        let reader = Writer(configuration: configurations[1])
        try await writer.addNote(owner: "alice")
        try await syncA.synchronize()
        try await syncB.synchronize()
        await syncA.start()
        await syncB.start()
        try await Task.sleep(for: .milliseconds(300))  // both listening
        var latencies: [Double] = []
        for sample in 1...samples {
            let start = clock.now
            try await writer.setNoteScore(Double(sample))
            while try await reader.noteScore() != Double(sample) {
                guard clock.now - start < .seconds(10) else {
                    throw BenchFailure("S2: sample \(sample) not seen in 10 s")
                }
                try await Task.sleep(for: .microseconds(200))
            }
            latencies.append(seconds(clock.now - start) * 1000)
            try await Task.sleep(for: .milliseconds(20))
        }
        await syncA.stop()
        await syncB.stop()
        return latencies
    }

    /// S3: W2's writes (one object per write transaction, no sync) per second, capture off or on.
    /// `drainEvery`: the outbox is emptied after that many writes (in the timed loop; a write of its
    /// own), as a running sync keeps it; reading the changes to send them is push work (S1), not timed
    /// here. nil: the outbox grows (no sync at all).
    func w2(count: Int, capture: Bool, drainEvery: Int? = nil, round: Int) throws -> Double {
        let file = temporaryFile("s3-\(capture)-\(drainEvery ?? 0)-\(round)")
        defer { removeFile(file) }
        var configuration = Store.Configuration(fileURL: file, objectTypes: [Row.self])
        configuration.durability = .noSync
        let store = try Store(configuration: configuration)
        if capture { try store.captureChanges(of: [Row.self]) }
        let start = clock.now
        for id in 0..<count {
            try store.write { try store.add(Row(id: id)) }
            if let drainEvery, (id + 1).isMultiple(of: drainEvery) {
                try store.removeCapturedChanges(through: .max)
            }
        }
        return Double(count) / seconds(clock.now - start)
    }

    struct BenchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func format(_ value: Double) -> String { String(format: "%.0f", value) }

    let options = Options(Array(CommandLine.arguments.dropFirst()))
    let pushCount = max(1_000, Int(100_000 * options.scale))
    let w2Count = max(1_000, Int(30_000 * options.scale))  // 10,000 took ~40 ms: too short for this machine's noise
    print("strata-sync-bench: scale \(options.scale), \(options.rounds) rounds, batch \(batchSize)")
    func runs(_ id: String) -> Bool { options.only == nil || options.only == id }
    var status: Int32 = 0
    var off: [Double] = []
    var on: [Double] = []
    var drained: [Double] = []
    // S3 first, before the server starts: a server writing back what S1 stored would time itself into W2.
    if runs("S3") {
        for round in 0..<options.rounds {
            // Alternated, so that neither side always runs on a warmer machine.
            if round.isMultiple(of: 2) { off.append(try w2(count: w2Count, capture: false, round: round)) }
            on.append(try w2(count: w2Count, capture: true, round: round))
            drained.append(try w2(count: w2Count, capture: true, drainEvery: 250, round: round))
            if !round.isMultiple(of: 2) { off.append(try w2(count: w2Count, capture: false, round: round)) }
        }
    }
    let bootstrapCount = max(1_000, Int(1_000_000 * options.scale))
    let soakCount = max(100_000, Int(1_000_000 * options.scale))
    let cluster = runs("S1") || runs("S2") || runs("S4") || runs("SOAK") ? try PostgresCluster.start() : nil
    do {
        var strataRates: [Double] = []
        var directRates: [Double] = []
        for round in 0..<options.rounds where runs("S1") {
            let even = round.isMultiple(of: 2)
            if even { strataRates.append(try await strataPush(cluster!, count: pushCount, round: round)) }
            directRates.append(try await directInsert(cluster!, count: pushCount, round: round))
            if !even { strataRates.append(try await strataPush(cluster!, count: pushCount, round: round)) }
        }
        var bootstrapRates: [Double] = []
        var directReads: [Double] = []
        if runs("S4") {
            let source = try await bootstrapSource(cluster!, count: bootstrapCount)
            for round in 0..<options.rounds {
                let even = round.isMultiple(of: 2)
                if even {
                    bootstrapRates.append(
                        try await strataBootstrap(cluster!, database: source, count: bootstrapCount, round: round))
                }
                directReads.append(
                    try await directBootstrap(cluster!, database: source, count: bootstrapCount, round: round))
                if !even {
                    bootstrapRates.append(
                        try await strataBootstrap(cluster!, database: source, count: bootstrapCount, round: round))
                }
            }
        }
        let soaked = runs("SOAK") ? try await soak(cluster!, count: soakCount) : nil
        let latencies =
            runs("S2") ? try await commitToVisible(cluster!, samples: max(20, Int(100 * options.scale))) : []
        print("")
        print("| id | what | Strata | peer | ratio (median; rounds) | goal |")
        print("|----|------|--------|------|------------------------|------|")
        if runs("S1") {
            let ratios = zip(strataRates, directRates).map { $0 / $1 }
            print(
                "| S1 | push of \(pushCount) changes, changes/s | \(format(median(strataRates))) | postgres-nio directly: \(format(median(directRates))) "
                    + "| \(String(format: "%.2f", median(ratios)))× (\(ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "))) | ≥ 0.75× |"
            )
        }
        if runs("S4") {
            let ratios = zip(bootstrapRates, directReads).map { $0 / $1 }
            print(
                "| S4 | a new client's start from \(bootstrapCount) objects, objects/s | \(format(median(bootstrapRates))) | postgres-nio read + add(contentsOf:): \(format(median(directReads))) "
                    + "| \(String(format: "%.2f", median(ratios)))× (\(ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "))) | ≥ 0.5× |"
            )
        }
        if let soaked {
            print(
                "| SOAK | \(soakCount) changes (updates of 10,000 objects) pushed and pulled by two clients that trim | strata.changes at most \(soaked.rows) rows, \(soaked.bytes / 1024) KB (between pulls) | \(soaked.last) rows at the end | — | bounded |"
            )
        }
        if runs("S2") {
            let sortedLatencies = latencies.sorted()
            print(
                "| S2 | a commit on one client read on another (row-level security on), ms | median \(String(format: "%.1f", median(latencies))) "
                    + "| p90 \(String(format: "%.1f", sortedLatencies[sortedLatencies.count * 9 / 10])), max \(String(format: "%.1f", sortedLatencies.last!)) "
                    + "| \(latencies.count) samples | ≤ 50 ms |")
        }
        if runs("S3") {
            let costs = zip(off, on).map { $0 / $1 }
            print(
                "| S3 | W2 (\(w2Count) one-object writes, no sync), writes/s | capture on: \(format(median(on))) | off: \(format(median(off))) "
                    + "| \(String(format: "%.2f", median(costs)))× the time (\(costs.map { String(format: "%.2f", $0) }.joined(separator: ", "))) | ≤ 1.3× |"
            )
            let drainedCosts = zip(off, drained).map { $0 / $1 }
            print(
                "| S3 | the same, the outbox emptied every 250 writes (as a running sync keeps it; its removal timed), writes/s | capture on: \(format(median(drained))) | off: \(format(median(off))) "
                    + "| \(String(format: "%.2f", median(drainedCosts)))× the time (\(drainedCosts.map { String(format: "%.2f", $0) }.joined(separator: ", "))) | ≤ 1.3× |"
            )
        }
    } catch {
        print("strata-sync-bench failed: \(error)")
        status = 1
    }
    cluster?.stop()
    exit(status)
#else
    // Built without the Sync trait (`swift build --traits Sync`; `make` passes it).
    import Foundation

    FileHandle.standardError.write(Data("this build has no sync: build with --traits Sync (make does)\n".utf8))
    exit(2)
#endif
