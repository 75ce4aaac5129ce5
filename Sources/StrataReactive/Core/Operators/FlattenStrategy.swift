import Foundation

/// How `flatMap` combines the producers it makes of each value.
public enum FlattenStrategy: Sendable {
    /// Starts each inner producer at once and forwards every inner value as it comes.
    case merge
    /// Starts each inner producer when the one before has completed, in order.
    case concat
    /// Keeps only the newest inner producer running: a new value interrupts the one before.
    case latest
}
