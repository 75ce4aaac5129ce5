/// JSON's string literal, for the tools built on Strata (the `strata` command's dumps, StrataSync's
/// `jsonb` values): the one place strings are escaped for JSON.
@_spi(StrataTools)
public enum JSONString {
    /// Appends `string` as a JSON string literal: quoted, with `"`, `\` and control characters escaped.
    public static func append(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let digits = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `string` as a JSON string literal.
    public static func quoted(_ string: String) -> String {
        var text = ""
        append(string, to: &text)
        return text
    }
}
