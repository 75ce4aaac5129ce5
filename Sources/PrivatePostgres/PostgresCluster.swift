import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL cluster for a test: made with `initdb` in a temporary directory, started with
/// `pg_ctl` on a free loopback port, stopped and deleted by `stop()`. PostgreSQL refuses to run as
/// root: run as root, the cluster belongs to the `postgres` user (`runuser`). Its superuser is
/// `strata`, password `strata`, checked (scram-sha-256) on every connection.
///
/// TCP connections must use TLS: the server's certificate (for `127.0.0.1` only) is signed by a
/// certificate authority made for the cluster (`certificateAuthorityFile`, PEM), so that clients
/// exercise verification as they would against a real server. A connection without TLS is refused.
///
/// ```swift
/// let cluster = try PostgresCluster.start()
/// defer { cluster.stop() }
/// print(cluster.url(database: "postgres"))   // postgresql://strata:strata@127.0.0.1:PORT/postgres
/// ```
public final class PostgresCluster: Sendable {
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let user = "strata"
    public static let password = "strata"

    public let directory: URL
    public let port: Int
    private let binaries: URL
    private let runsAsPostgres: Bool
    /// Whether the server takes TCP connections with TLS only (else without TLS only).
    public let speaksTLS: Bool

    private var dataDirectory: String { directory.appendingPathComponent("data").path }
    private var tlsDirectory: URL { directory.appendingPathComponent("tls") }

    /// Another loopback address the server listens on, which its certificate does not name: a client
    /// that verifies the server's identity must refuse it.
    public static let uncertifiedAddress = "127.0.0.2"

    /// The certificate (PEM) of the authority that signed the server's certificate: what a client
    /// passes as its root certificate to verify the server.
    public var certificateAuthorityFile: String { tlsDirectory.appendingPathComponent("ca.pem").path }

    /// Makes and starts a cluster.
    ///
    /// - Parameter tls: false: a server with `ssl` off that takes plain TCP connections (what a client
    ///   that insists on TLS must refuse).
    /// - Throws: `SetupError` saying which step failed, with the program's output.
    public static func start(tls: Bool = true) throws -> PostgresCluster {
        let binaries = try findBinaries()
        var failure: (any Error)?
        // The free port is free when asked, not necessarily when the server binds it: a new one, twice.
        for _ in 0..<3 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strata-pg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let cluster = PostgresCluster(
                directory: directory, port: try freePort(), binaries: binaries, runsAsPostgres: getuid() == 0,
                speaksTLS: tls)
            do {
                try cluster.make()
                try cluster.startServer()
                return cluster
            } catch {
                cluster.stop()
                failure = error
            }
        }
        throw failure!
    }

    private init(directory: URL, port: Int, binaries: URL, runsAsPostgres: Bool, speaksTLS: Bool) {
        self.speaksTLS = speaksTLS
        self.directory = directory
        self.port = port
        self.binaries = binaries
        self.runsAsPostgres = runsAsPostgres
    }

    /// A connection URL for `database` (as `user`, with `password`).
    public func url(database: String, user: String = user, password: String = password) -> String {
        "postgresql://\(user):\(password)@127.0.0.1:\(port)/\(database)"
    }

    /// Whether the cluster's server runs: its directory is there with a `postmaster.pid` (what
    /// `stop()` removes, and a stopped server deletes).
    public var isRunning: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/postmaster.pid").path)
    }

    /// Stops the server at once and deletes the cluster's directory.
    public func stop() {
        _ = try? run(
            binaries.appendingPathComponent("pg_ctl").path, ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server at once (as a crash would), keeping its data: `restartServer()` starts it again
    /// on the same port.
    public func stopServer() throws {
        try run(binaries.appendingPathComponent("pg_ctl").path, ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    /// Starts the server again after `stopServer()`.
    public func restartServer() throws {
        try startServer()
    }

    /// What the server wrote to its log so far (with `log_connections` on: each connection received,
    /// each one authorized, each refused handshake).
    public func serverLog() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    /// Runs `psql` against `database` with `sql`; returns its output (tuples only, unaligned).
    ///
    /// - Throws: `SetupError` with psql's output when it fails (a wrong password, say).
    public func psql(_ sql: String, database: String = "postgres", user: String = user, password: String = password)
        throws -> String
    {
        try run(
            "/usr/bin/env",
            ["psql", url(database: database, user: user, password: password), "-v", "ON_ERROR_STOP=1", "-tAc", sql],
            asPostgres: false)
    }

    private func make() throws {
        if runsAsPostgres { _ = try run("/bin/chown", ["-R", "postgres:postgres", directory.path], asPostgres: false) }
        let passwordFile = directory.appendingPathComponent("password").path
        try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if runsAsPostgres { _ = try run("/bin/chown", ["postgres:postgres", passwordFile], asPostgres: false) }
        _ = try run(
            binaries.appendingPathComponent("initdb").path,
            [
                "-D", dataDirectory, "-U", Self.user, "--pwfile", passwordFile, "--auth", "scram-sha-256",
                "--encoding", "UTF8", "--no-sync",
            ])
        try makeCertificates()
        // Every TCP connection with TLS (a line for TCP without it would be refused: none matches).
        let host = speaksTLS ? "hostssl" : "host"
        try """
        local all all scram-sha-256
        \(host) all all 127.0.0.0/8 scram-sha-256
        \(host) all all ::1/128 scram-sha-256

        """.write(toFile: dataDirectory + "/pg_hba.conf", atomically: true, encoding: .utf8)
        if runsAsPostgres {
            _ = try run("/bin/chown", ["-R", "postgres:postgres", directory.path], asPostgres: false)
        }
    }

    /// A certificate authority for the cluster, and the server's key and certificate signed by it.
    private func makeCertificates() throws {
        try FileManager.default.createDirectory(at: tlsDirectory, withIntermediateDirectories: true)
        let authority = try Self.makeCertificateAuthority(in: tlsDirectory, name: "ca")
        let key = tlsDirectory.appendingPathComponent("server.key").path
        let request = tlsDirectory.appendingPathComponent("server.csr").path
        let extensions = tlsDirectory.appendingPathComponent("server.ext").path
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            toFile: extensions, atomically: true, encoding: .utf8)
        try run(
            "/usr/bin/env",
            [
                "openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1",
            ], asPostgres: false)
        try run(
            "/usr/bin/env",
            [
                "openssl", "x509", "-req", "-in", request, "-CA", authority.certificate, "-CAkey", authority.key,
                "-CAcreateserial", "-days", "7", "-extfile", extensions, "-out",
                tlsDirectory.appendingPathComponent("server.pem").path,
            ], asPostgres: false)
        // PostgreSQL refuses a key others can read.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
    }

    /// Makes a self-signed certificate authority in `directory`: `NAME.pem` (its certificate) and
    /// `NAME.key`. The cluster makes its own; a test makes another to play a server it should not trust.
    ///
    /// - Throws: `SetupError` with openssl's output.
    @discardableResult
    public static func makeCertificateAuthority(in directory: URL, name: String) throws -> (
        certificate: String, key: String
    ) {
        let certificate = directory.appendingPathComponent("\(name).pem").path
        let key = directory.appendingPathComponent("\(name).key").path
        try runProgram(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", key, "-out", certificate, "-days", "7", "-subj", "/CN=Strata test CA \(name)",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], as: nil)
        return (certificate, key)
    }

    private func startServer() throws {
        let tls =
            !speaksTLS
            ? "-c ssl=off"
            : "-c ssl=on -c ssl_cert_file=\(tlsDirectory.path)/server.pem -c ssl_key_file=\(tlsDirectory.path)/server.key"
        let options =
            "-p \(port) -h 127.0.0.1,\(Self.uncertifiedAddress) -k \(directory.path) -c fsync=off -c full_page_writes=off \(tls) -c log_connections=on"
        _ = try run(
            binaries.appendingPathComponent("pg_ctl").path,
            [
                "-D", dataDirectory, "-o", options, "-l", directory.appendingPathComponent("server.log").path, "-w",
                "start",
            ])
    }

    /// Runs a program (as `postgres` when the cluster is theirs) through bash, which first closes every
    /// descriptor but 0–2: a server started from it must not inherit this process's files, or
    /// Foundation's `Process` waits for them. Output goes to a file, never a pipe the server could keep.
    @discardableResult
    private func run(_ program: String, _ arguments: [String], asPostgres: Bool? = nil) throws -> String {
        try Self.runProgram(program, arguments, as: (asPostgres ?? runsAsPostgres) ? "postgres" : nil)
    }

    @discardableResult
    private static func runProgram(_ program: String, _ arguments: [String], as user: String?) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw SetupError(description: "cannot create \(output.path)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let command = user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] } ?? [program]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                "-c",
                "for fd in /proc/$$/fd/*; do n=${fd##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done; exec \"$@\"",
                "bash",
            ] + command + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/")  // readable by postgres too
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw SetupError(
                description: "\(program) \(arguments.prefix(3)): exit \(process.terminationStatus): \(text)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw SetupError(description: "no PostgreSQL server in /usr/lib/postgresql (make test installs it)")
    }

    /// A loopback port nobody listens on now (the kernel's pick for a socket bound to port 0).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SetupError(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        guard bound else { throw SetupError(description: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
