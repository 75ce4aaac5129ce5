import Foundation
import Strata

/// A temporary directory per test, with a store configuration in it (removed when the fixture goes).
public final class Fixture: @unchecked Sendable {  // immutable after init
    public let directory: URL
    public let configuration: Store.Configuration

    public init(
        _ types: [Object.Type] = [Person.self, Note.self], configure: (inout Store.Configuration) -> Void = { _ in }
    ) {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(getpid())-\(UUID().uuidString)")
        // Creating a directory in the system's temporary directory cannot reasonably fail; if it does,
        // the test fails on opening the store with `.fileAccess`.
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("test.strata"), objectTypes: types)
        configure(&configuration)
        self.configuration = configuration
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    public var path: String { configuration.fileURL?.path ?? "" }

    /// The calling thread's Store of the fixture's file (the same one on each call from one thread).
    public func open() throws(StoreError) -> Store {
        try Store(configuration: configuration)
    }

    /// The file's bytes.
    public func fileBytes() -> Data {
        (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
    }
}

/// Runs `body` on a new thread and waits for it.
public func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.start()
    done.wait()
    return box.value!
}

/// Carries a result from another thread; the semaphore orders the write before the read.
public final class ResultBox<R>: @unchecked Sendable {
    public var value: R?
    public init() {}
}

/// Whether an error is the StoreError case expected (ignoring associated values).
public func isCase(_ error: any Error, _ expected: StoreError) -> Bool {
    guard let error = error as? StoreError else { return false }
    switch (error, expected) {
    case (.alreadyExists, .alreadyExists), (.migrationRequired, .migrationRequired),
        (.schemaMismatch, .schemaMismatch), (.corrupted, .corrupted), (.fileAccess, .fileAccess),
        (.invalidArgument, .invalidArgument), (.storage, .storage):
        return true
    default:
        return error == expected
    }
}

/// Moves a value across threads in a test that means to misuse (or prove unconfined) it.
public struct Unchecked<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

/// A small seeded generator (SplitMix64), so that randomised tests replay exactly.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
