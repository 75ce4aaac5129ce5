#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// The pending count without a server: it follows the outbox as local commits fill it.
    @Suite("StrataSync's pending count", .fixtureChecks)
    struct PendingCountTests {
        @Test("every durable commit of another Store is counted, each as soon as it is made")
        func eachCommitIsCounted() async throws {
            var server = SyncServer(port: try closedPort(), username: "nobody", password: "", database: "none")
            server.connectTimeout = .seconds(1)
            let client = try await SyncClient(server: server)
            // LMDB shows a durable commit's version (its meta page, read by `mdb_env_info`) while it syncs
            // the page, before a new snapshot can see the commit: a count that trusted that version
            // skipped the commit (and, when it was the last one, waited for the next commit forever).
            var count = 0
            for _ in 1...200 {
                for _ in 1...3 {  // back to back: the count often looks while one syncs
                    count += 1
                    let id = count
                    try await client.write { try $0.add(SyncItem(id: id, title: "item \(id)", count: id)) }
                }
                let counted = await waitUntil(timeout: .seconds(20)) { client.sync.state.pending == count }
                #expect(counted, "commit \(count): pending is \(client.sync.state.pending)")
                if !counted { break }
            }
        }
    }
#endif
