import Foundation

// Decimal128's API that throws Strata's errors (the type itself is in Encoding: keys order by it).

extension Decimal128 {
    /// The value written in `string`: `[+-]digits[.digits][e[+-]digits]`, `NaN`, `Inf` or
    /// `Infinity` (any case). More than 34 significant digits round, half to even.
    ///
    /// - Throws: `StoreError.invalidArgument` when the text is not a number.
    public init(string: String) throws(StoreError) {
        guard let value = Self.parse(string) else { throw .invalidArgument("\"\(string)\" is not a decimal number") }
        self = value
    }

}

extension Decimal128: Codable {
    /// Decodes the decimal's text (as `description` writes it).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try Decimal128(string: text)
    }

    /// Encodes the decimal's text (`description`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
