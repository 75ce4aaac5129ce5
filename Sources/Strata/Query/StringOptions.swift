/// How `contains`, `starts(with:)`, `ends(with:)` and `like` compare strings: the string language's
/// `[c]`, `[d]` and `[cd]`.
public struct StringOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Compares the `lowercased()` forms: `[c]`.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Compares the forms without diacritics (`"Éve"` as `"Eve"`): `[d]`.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}
