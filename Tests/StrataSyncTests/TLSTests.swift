#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// TLS to the server: the private cluster accepts TCP connections only with TLS, its certificate (for
    /// 127.0.0.1) signed by an authority of its own.
    @Suite("StrataSync over TLS", .serialized, .offThePool, .fixtureChecks)
    struct TLSTests {
        @Test("verify-full against the cluster's authority: connects encrypted, and the change arrives")
        func verifiedConnection() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let client = try await SyncClient(server: scene.server)
            try await client.write { try $0.add(SyncItem(id: 1, title: "sealed", count: 1)) }
            try await client.sync.synchronize()
            #expect(try scene.serverItems().map(\.title) == ["sealed"])
            // The sync's connection stays open between synchronizations: the server says how it came.
            let connections = try scene.cluster.psql(
                """
                SELECT s.ssl, s.version IS NOT NULL FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE a.datname = '\(scene.database)' AND a.pid <> pg_backend_pid()
                """, database: scene.database)
            #expect(connections.split(separator: "\n") == ["t|t"], "\(connections)")
            await client.sync.stop()
        }

        @Test("a server whose certificate another authority signed: .untrustedServer, nothing sent")
        func wrongAuthority() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("strata-ca-\(UUID())")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: elsewhere) }
            let other = try PostgresCluster.makeCertificateAuthority(in: elsewhere, name: "other")
            var server = scene.server
            server.tls = .verifyFull(rootCertificates: .pemFile(other.certificate))
            let authorizedBefore = scene.cluster.serverLog().components(separatedBy: "connection authorized").count
            let client = try await SyncClient(server: server)
            try await client.write { try $0.add(SyncItem(id: 1, title: "secret", count: 1)) }
            await expectUntrusted { try await client.sync.synchronize() }
            #expect(client.sync.state.pending == 1)
            #expect(client.sync.state.connection == .offline)
            // No connection got as far as authentication, and the server holds nothing of sync's.
            let log = scene.cluster.serverLog()
            #expect(log.components(separatedBy: "connection authorized").count == authorizedBefore, "\(log)")
            #expect(
                try scene.cluster.psql("SELECT to_regclass('strata.changes') IS NULL", database: scene.database) == "t")
            // The same client with the right authority then pushes what waited.
            let fixed = try await SyncClient(server: scene.server, fixture: client.fixture)
            try await fixed.sync.synchronize()
            #expect(try scene.serverItems().map(\.title) == ["secret"])
        }

        @Test("a certificate for another host: .untrustedServer")
        func wrongHost() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var server = scene.server
            server.host = PostgresCluster.uncertifiedAddress  // the same server; its certificate names 127.0.0.1
            let client = try await SyncClient(server: server)
            await expectUntrusted { try await client.sync.synchronize() }
        }

        @Test("root certificates that cannot be read: .untrustedServer, no connection tried")
        func unreadableRoots() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let received = scene.cluster.serverLog().components(separatedBy: "connection received").count
            for roots in [SyncServer.RootCertificates.pemFile("/nonexistent/ca.pem"), .pem("not a certificate")] {
                var server = scene.server
                server.tls = .verifyFull(rootCertificates: roots)
                let client = try await SyncClient(server: server)
                await expectUntrusted { try await client.sync.synchronize() }
            }
            #expect(scene.cluster.serverLog().components(separatedBy: "connection received").count == received)
        }

        @Test("the authority as PEM text verifies as the file does")
        func rootsAsText() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var server = scene.server
            server.tls = .verifyFull(
                rootCertificates: .pem(
                    try String(contentsOfFile: scene.cluster.certificateAuthorityFile, encoding: .utf8)))
            let client = try await SyncClient(server: server)
            try await client.write { try $0.add(SyncItem(id: 1)) }
            try await client.sync.synchronize()
            #expect(try scene.serverItems().count == 1)
        }

        @Test(".require encrypts without checking the certificate; .disable is refused by this server")
        func requireAndDisable() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var server = scene.server
            server.tls = .require
            let encrypted = try await SyncClient(server: server)
            try await encrypted.write { try $0.add(SyncItem(id: 1)) }
            try await encrypted.sync.synchronize()
            #expect(try scene.serverItems().count == 1)

            server.tls = .disable
            let plain = try await SyncClient(server: server)
            await #expect {
                try await plain.sync.synchronize()
            } throws: { error in
                guard case .authenticationFailed(let reason) = error as? SyncError else { return false }
                return reason.contains("no encryption")
            }
        }

        @Test("a server without TLS: .tlsUnavailable for .require and .verifyFull, nothing sent")
        func serverWithoutTLS() async throws {
            let cluster = try PostgresCluster.start(tls: false)
            registerForTeardown(cluster)
            defer { cluster.stop() }
            _ = try cluster.psql("CREATE DATABASE app")
            for tls in [
                SyncServer.TLS.require, .verifyFull(rootCertificates: .pemFile(cluster.certificateAuthorityFile)),
            ] {
                let server = SyncServer(
                    port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password,
                    database: "app", tls: tls)
                let client = try await SyncClient(server: server)
                try await client.write { try $0.add(SyncItem(id: 1)) }
                await #expect {
                    try await client.sync.synchronize()
                } throws: { error in
                    if case .tlsUnavailable = error as? SyncError { return true }
                    return false
                }
                #expect(client.sync.state.pending == 1)
            }
            #expect(try cluster.psql("SELECT to_regclass('strata.changes') IS NULL", database: "app") == "t")
        }

        @Test("the default: verify-full with the system's roots, except on the loopback")
        func defaults() {
            let remote = SyncServer(host: "db.example.com", username: "app", database: "app")
            #expect(remote.tls == .verifyFull(rootCertificates: .system))
            for host in ["127.0.0.1", "localhost", "::1"] {
                #expect(SyncServer(host: host, username: "app", database: "app").tls == .disable, "\(host)")
            }
            #expect(SyncServer(host: "db.example.com", username: "app", database: "app", tls: .require).tls == .require)
        }

        private func expectUntrusted(_ body: () async throws -> Void) async {
            await #expect {
                try await body()
            } throws: { error in
                if case .untrustedServer = error as? SyncError { return true }
                return false
            }
        }
    }
#endif
