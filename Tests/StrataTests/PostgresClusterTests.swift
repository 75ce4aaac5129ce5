import Foundation
import StrataTestSupport
import Testing

/// The private PostgreSQL cluster the sync tests run against (Sources/PrivatePostgres/PostgresCluster.swift).
@Suite("A private PostgreSQL cluster for the sync tests", .serialized, .offThePool, .fixtureChecks)
struct PostgresClusterTests {
    @Test("a cluster starts on a free loopback port, answers with the password, refuses a wrong one, stops")
    func startQueryStop() throws {
        let cluster = try PostgresCluster.start()
        registerForTeardown(cluster)
        defer { cluster.stop() }
        #expect(try cluster.psql("select 1 + 1") == "2")
        #expect(try cluster.psql("create database app") == "CREATE DATABASE")
        #expect(try cluster.psql("select current_database()", database: "app") == "app")
        let refused = #expect(throws: PostgresCluster.SetupError.self) {
            try cluster.psql("select 1", password: "wrong")
        }
        #expect(
            refused?.description.contains("password authentication failed") == true, "\(String(describing: refused))")
        cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.directory.path))
        #expect(throws: PostgresCluster.SetupError.self) { try cluster.psql("select 1") }  // stopped
    }
}
