// O1: what opening a store costs with the full check (every page and row, `OpeningCheck.full`)
// against the minimal one, for files of 100 MiB and 1 GiB, with the file in the page cache (warm)
// and evicted from it (cold: `posix_fadvise(DONTNEED)` after an fsync).
//
//   strata-open-check [--sizes 100,1024] [--rounds 3] [--directory DIR]
//
// The full check runs once per process per version of a file: each timed open first gives the file a
// new modification time, so the check runs every time, as in a new process.
import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

final class OpenBlob: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var payload: Data
}

struct Options {
    var sizes = [100, 1024]
    var rounds = 3
    var directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-open-check").path

    init(_ arguments: [String]) {
        var index = 1
        while index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch arguments[index] {
            case "--sizes": sizes = value.split(separator: ",").compactMap { Int($0) }
            case "--rounds": rounds = Int(value) ?? rounds
            case "--directory": directory = value
            default: break
            }
            index += 2
        }
    }
}

func configuration(_ path: String, check: Store.OpeningCheck) -> Store.Configuration {
    var configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [OpenBlob.self])
    configuration.maximumSize = 8 << 30
    configuration.durability = .noSync
    configuration.openingCheck = check
    return configuration
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// A store of about `mebibytes` MiB of 1,000-byte rows, made once and kept.
func makeFile(mebibytes: Int, in directory: String) throws -> String {
    let path = "\(directory)/open-\(mebibytes).strata"
    if fileSize(path) >= mebibytes << 20 { return path }
    unlink(path)
    unlink(path + "-lock")
    let store = try Store(configuration: configuration(path, check: .minimal))
    var next = 0
    let payload = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    while fileSize(path) < mebibytes << 20 {
        try store.write {
            for _ in 0..<10_000 {
                let blob = OpenBlob()
                blob.id = next
                blob.payload = payload
                try store.add(blob)
                next += 1
            }
        }
    }
    return path
}

/// Flushes the file and drops it from the page cache.
func evict(_ path: String) {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return }
    fsync(fd)
    posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
    close(fd)
}

/// A new modification time, so that this process checks the file again.
nonisolated(unsafe) var touches = 0
func touch(_ path: String) {
    touches += 1
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var times = [now, timespec(tv_sec: now.tv_sec + touches, tv_nsec: 0)]
    _ = utimensat(AT_FDCWD, path, &times, 0)
}

func warm(_ path: String) {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    while let chunk = try? handle.read(upToCount: 8 << 20), !chunk.isEmpty {}
}

/// Median milliseconds of opening (and closing) the store.
func timeOpen(_ path: String, check: Store.OpeningCheck, cold: Bool, rounds: Int) throws -> Double {
    var times: [Double] = []
    for _ in 0..<rounds {
        touch(path)
        if cold { evict(path) } else { warm(path) }
        let start = ContinuousClock.now
        do { _ = try Store(configuration: configuration(path, check: check)) }
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
    }
    return times.sorted()[times.count / 2]
}

let options = Options(CommandLine.arguments)
try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
print("| file | page cache | open, minimal check | open, full check | full / minimal |")
print("| --- | --- | ---: | ---: | ---: |")
for size in options.sizes {
    let path = try makeFile(mebibytes: size, in: options.directory)
    let label = size >= 1024 ? "\(size / 1024) GiB" : "\(size) MiB"
    for cold in [false, true] {
        let minimal = try timeOpen(path, check: .minimal, cold: cold, rounds: options.rounds)
        let full = try timeOpen(path, check: .full, cold: cold, rounds: options.rounds)
        print(
            "| \(label) (\(fileSize(path) >> 20) MiB) | \(cold ? "cold" : "warm") | "
                + String(format: "%.1f ms | %.1f ms | %.0f×", minimal, full, full / max(minimal, 0.001)) + " |")
    }
}
