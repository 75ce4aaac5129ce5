import Strata

/// The reactive face of a Strata type: `person.reactive`, `store.reactive`, `results.reactive`,
/// `[a, b].reactive`.
///
/// ```swift
/// person.reactive.add(to: store, on: .background).startWithResult { print($0) }
/// ```
public struct Reactive<Base> {
    /// The object, Store, Results or array the reactive API works on.
    public let base: Base

    /// The reactive face of `base`.
    public init(_ base: Base) {
        self.base = base
    }
}

/// Types with a `reactive` face.
public protocol ReactiveExtensionsProvider {}

extension ReactiveExtensionsProvider {
    /// This value's reactive API (`person.reactive.add(to:)`, `store.reactive.objects(_:)`, …).
    public var reactive: Reactive<Self> { Reactive(self) }
}

extension Object: ReactiveExtensionsProvider {}
extension Store: ReactiveExtensionsProvider {}
extension Results: ReactiveExtensionsProvider {}

extension Array where Element: Object {
    /// Reactive writes of all these objects together: all or nothing.
    public var reactive: Reactive<[Element]> { Reactive(self) }
}
