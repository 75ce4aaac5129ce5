/// How `contains`, `starts(with:)` and `ends(with:)` compare strings.
public struct StringOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Compares the `lowercased()` forms.
    public static let caseInsensitive = StringOptions(rawValue: 1)
}
