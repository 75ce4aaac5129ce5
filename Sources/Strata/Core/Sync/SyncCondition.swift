/// A query's condition as data: what sync hands its server, which evaluates it in SQL over the typed
/// tables (StrataSync's subscriptions). Only conditions on the type's own stored values have one.
@_spi(StrataSync)
public indirect enum SyncCondition: Sendable, Hashable {
    /// Always (`TRUEPREDICATE`) or never.
    case constant(Bool)
    case and(SyncCondition, SyncCondition)
    case or(SyncCondition, SyncCondition)
    case not(SyncCondition)
    case comparison(SyncComparison)
}

/// A property of the type compared with values, under the rules of Strata's queries (`Query`): nil
/// equals only nil; an ordered comparison never matches nil, except for `String?` (nil sorts first);
/// strings compare by their UTF-8 bytes.
@_spi(StrataSync)
public struct SyncComparison: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        /// Any of `values`.
        case oneOf
        case beginsWith, endsWith, contains
        /// `*` any run of characters, `?` one character.
        case like
    }

    public let property: String
    public let type: SyncType
    public let `operator`: Operator
    /// One value; several for `.oneOf`; a `.string` for the string matches.
    public let values: [SyncValue]
    /// `[c]`: compares `lowercased()` forms.
    public let caseInsensitive: Bool
    /// `[d]`: compares without diacritics.
    public let diacriticInsensitive: Bool

    public init(
        property: String, type: SyncType, operator: Operator, values: [SyncValue], caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) {
        self.property = property
        self.type = type
        self.operator = `operator`
        self.values = values
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
    }
}
