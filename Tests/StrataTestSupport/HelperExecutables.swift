import Foundation

/// An executable of this package (`strata-stress`, `strata-demo`, …), which SwiftPM builds beside
/// the test binary.
public func executableBesideTests(_ name: String) -> URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
}
