import Foundation

/// Something that can be cancelled or cleaned up, once: disposing twice does nothing more.
///
/// ```swift
/// let disposable = producer.startWithValues { print($0) }
/// disposable.dispose()   // interrupts the producer's work
/// ```
/// - Warning: `dispose()` may be called from any thread; the cleanup runs on the calling thread.
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has run (or, for a started producer, whether its work has ended).
    var isDisposed: Bool { get }
    /// Cancels the work or releases the resource; later calls do nothing.
    func dispose()
}
