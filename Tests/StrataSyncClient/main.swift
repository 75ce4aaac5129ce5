#if Sync
    // A sync client the sync tests run several of at once, and kill (Tests/StrataSyncTests). Modes:
    //
    //   edit    seeded random edits of a few shared keys (inserts, updates, deletes, recreates, links),
    //           synchronizing now and then and at the end; prints "done"
    //   append  for ever: commits inserts of the next ids of its own range, synchronizes; prints
    //           "synced N" (N: its objects so far)
    //   pull    for ever: synchronizes (it writes nothing itself); prints "at POSITION"
    //   finish  synchronizes until it succeeds (20 tries); prints "done"
    //   idle    (--started 0|1 --seconds S) leaves sync unstarted, or started and caught up, for S
    //           seconds; prints "cpu MS", the process's CPU time over those seconds
    //
    // Options: --file PATH --port P --database D --ca PEM-FILE [--seed S] [--ops N] [--keys K] [--batch B] [--base B]
    import Foundation
    import Strata
    import StrataSync
    import StrataTestModels

    #if canImport(Glibc)
        import Glibc
    #endif

    /// Writes a line at once (unbuffered: the tests read it while the client runs, and may kill it).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    struct Options {
        var mode = ""
        var values: [String: String] = [:]

        init(_ arguments: [String]) {
            mode = arguments.first ?? ""
            var rest = arguments.dropFirst()
            while let name = rest.popFirst(), name.hasPrefix("--"), let value = rest.popFirst() {
                values[String(name.dropFirst(2))] = value
            }
        }

        func int(_ name: String, _ fallback: Int) -> Int { values[name].flatMap(Int.init) ?? fallback }
    }

    /// A generator whose sequence depends on the seed alone (SplitMix64).
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    actor Client {
        let sync: StoreSync
        private var store: Store!

        init(_ options: Options) async throws {
            let configuration = Store.Configuration(
                fileURL: URL(fileURLWithPath: options.values["file"]!), objectTypes: [SyncItem.self, SyncOwner.self])
            let server = SyncServer(
                port: options.int("port", 5432), username: "strata", password: "strata",
                database: options.values["database"] ?? "app",
                tls: options.values["ca"].map { .verifyFull(rootCertificates: .pemFile($0)) },
                connectTimeout: .seconds(5),
                batchSize: options.int("batch", 2_000))
            sync = try await StoreSync(
                configuration: configuration, server: server, types: [SyncItem.self, SyncOwner.self])
            store = try await Store(configuration: configuration, actor: self)
        }

        func write(_ body: (Store) throws -> Void) async throws {
            let store = self.store!
            try await store.asyncWrite { try body(store) }
        }

        func count(atLeast base: Int) throws -> Int {
            _ = try store.refresh()
            return store.objects(SyncItem.self).filter { $0.id >= base }.count
        }

        func edit(_ random: inout SeededGenerator, keys: Int) async throws {
            let id = Int.random(in: 0..<keys, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            let word = "w\(Int.random(in: 0..<1000, using: &random))"
            let number = Int.random(in: 0..<1000, using: &random)
            let ownerName = ["o0", "o1", "o2", ""][Int.random(in: 0..<4, using: &random)]
            try await write { store in
                let item = store.object(ofType: SyncItem.self, forPrimaryKey: id)
                switch roll {
                case 0..<35:
                    if let item {
                        item.title = word
                        item.count = number
                    } else {
                        try store.add(
                            SyncItem(id: id, title: word, count: number, note: number.isMultiple(of: 2) ? word : nil))
                    }
                case 35..<50: item?.title = word
                case 50..<60: item?.count = number
                case 60..<70: item?.note = number.isMultiple(of: 3) ? nil : word
                case 70..<85: if let item { try store.delete(item) }
                default:
                    guard let item else { return }
                    if ownerName.isEmpty {
                        item.owner = nil
                    } else if let owner = store.object(ofType: SyncOwner.self, forPrimaryKey: ownerName) {
                        item.owner = owner
                    } else {
                        let owner = SyncOwner(name: ownerName, joined: Date(timeIntervalSince1970: Double(number)))
                        owner.tags.append(word)
                        try store.add(owner)
                        item.owner = owner
                    }
                }
            }
        }
    }

    func finish(_ sync: StoreSync) async throws {
        for attempt in 1...20 {
            do {
                try await sync.synchronize()
                return
            } catch {
                if attempt == 20 { throw error }
                try await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }

    /// User and system CPU time of this process so far, in seconds.
    func processCPUTime() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
        let micros = usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
        return Double(seconds) + Double(micros) / 1_000_000
    }

    let options = Options(Array(CommandLine.arguments.dropFirst()))
    do {
        let client = try await Client(options)
        switch options.mode {
        case "edit":
            var random = SeededGenerator(state: UInt64(options.int("seed", 1)))
            for _ in 0..<options.int("ops", 100) {
                if Int.random(in: 0..<100, using: &random) < 15 {
                    try? await client.sync.synchronize()  // a failure is retried by the next one
                } else {
                    try await client.edit(&random, keys: options.int("keys", 12))
                }
                try await Task.sleep(for: .microseconds(Int.random(in: 0..<3_000, using: &random)))
            }
            try await finish(client.sync)
            say("done")
        case "append":
            let base = options.int("base", 0)
            while true {
                let count = try await client.count(atLeast: base)
                try await client.write { store in
                    for id in (base + count)..<(base + count + 3) {
                        try store.add(SyncItem(id: id, title: "n\(id)", count: id))
                    }
                }
                try await client.sync.synchronize()
                say("synced \(count + 3)")
            }
        case "pull":
            while true {
                try await client.sync.synchronize()
                say("at \(client.sync.state.lastSequence)")
            }
        case "finish":
            try await finish(client.sync)
            say("done")
        case "idle":
            if options.int("started", 0) == 1 {
                try await finish(client.sync)
                await client.sync.start()
                while client.sync.state.connection != .connected { try await Task.sleep(for: .milliseconds(20)) }
                try await Task.sleep(for: .milliseconds(500))  // the listener connects, the first poll is done
            }
            let before = processCPUTime()
            try await Task.sleep(for: .seconds(options.int("seconds", 60)))
            say("cpu \(Int((processCPUTime() - before) * 1000))")
        default:
            FileHandle.standardError.write(Data("unknown mode \(options.mode)\n".utf8))
            exit(2)
        }
    } catch {
        FileHandle.standardError.write(Data("strata-sync-client: \(error)\n".utf8))
        exit(1)
    }
#else
    // Built without the Sync trait (`swift build --traits Sync`; `make` passes it).
    import Foundation

    FileHandle.standardError.write(Data("this build has no sync: build with --traits Sync (make does)\n".utf8))
    exit(2)
#endif
