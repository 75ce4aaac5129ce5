import Foundation

/// A parsed query of the string language (Realm Query Language's syntax): a condition and the
/// clauses after it. Positions are offsets in characters from the start of the text, for errors.
struct ParsedQuery {
    var condition: QueryNode
    var clauses: [QueryClause] = []
}

enum QuerySyntax {
    /// A key path's name for `map['key']`: no property name starts with "[".
    static func mapKeyName(_ key: String) -> String { "[" + key }

    /// The key of a name `mapKeyName` made, else nil.
    static func mapKey(of name: String) -> String? { name.first == "[" ? String(name.dropFirst()) : nil }

    /// A key path's names as written: `owner.phones['home']`.
    static func text(of names: [String]) -> String {
        names.enumerated().map { index, name in
            if let key = mapKey(of: name) { return "['\(key)']" }
            return index == 0 ? name : "." + name
        }.joined()
    }
}

enum QueryClause {
    case sort([(path: [String], ascending: Bool, position: Int)])
    case distinct([(path: [String], position: Int)])
    case limit(Int)
}

/// A condition of the string language.
indirect enum QueryNode {
    case constant(Bool)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
    /// `lhs op rhs`, with `[c]`/`[d]` options and an `ANY`/`ALL`/`NONE` quantifier.
    case comparison(
        QueryOperand, QueryOperator, QueryOperand, options: QueryStringOptions, quantifier: Quantifier?,
        position: Int)
    /// `value BETWEEN {low, high}`.
    case between(QueryOperand, QueryOperand, QueryOperand, position: Int)

    enum Quantifier { case any, all, noElement }
}

struct QueryStringOptions: OptionSet {
    let rawValue: Int
    static let caseInsensitive = QueryStringOptions(rawValue: 1)
    static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

enum QueryOperator: CustomStringConvertible {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like
    case `in`
    /// Full-text search (`body TEXT 'swift database -sqlite'`): needs a full-text index.
    case text

    var description: String {
        switch self {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .contains: "CONTAINS"
        case .like: "LIKE"
        case .in: "IN"
        case .text: "TEXT"
        }
    }

    /// The operator with its operands swapped (`3 < age` is `age > 3`); nil for string operators.
    var swapped: QueryOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }
}

/// One side of a comparison.
indirect enum QueryOperand {
    /// `name`, `owner.name`, `dogs.@count`, `dogs.@sum.age` (the `@` parts kept as names).
    case keyPath([String], position: Int)
    case literal(Any?, position: Int)
    case argument(Int, position: Int)
    /// `{1, 2, 3}`.
    case list([QueryOperand], position: Int)
    /// `SUBQUERY(dogs, $d, $d.age > 3).@count`.
    case subqueryCount(collection: [String], variable: String, condition: QueryNode, position: Int)

    var isKeyPath: Bool {
        if case .keyPath = self { return true }
        return false
    }

    var position: Int {
        switch self {
        case .keyPath(_, let position), .literal(_, let position), .argument(_, let position),
            .list(_, let position), .subqueryCount(_, _, _, let position):
            position
        }
    }
}

/// A token of the string language.
struct QueryToken {
    enum Kind: Equatable {
        case identifier(String)
        case number(String)
        case string(String)
        case argument(Int)
        case symbol(String)
        case end
    }

    let kind: Kind
    let position: Int

    /// The identifier in upper case, for keywords (`and`, `AND`).
    var keyword: String? {
        if case .identifier(let name) = kind { return name.uppercased() }
        return nil
    }
}

/// Splits a query into tokens.
enum QueryLexer {
    static func tokens(_ text: String) throws(StoreError) -> [QueryToken] {
        let characters = Array(text)
        var tokens: [QueryToken] = []
        var index = 0
        func fail(_ message: String) -> StoreError {
            .invalidArgument("query \"\(text)\", at \(index): \(message)")
        }
        while index < characters.count {
            let character = characters[index]
            let start = index
            if character.isWhitespace {
                index += 1
                continue
            }
            if character.isLetter || character == "_" || character == "@" {
                index += 1
                while index < characters.count,
                    characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
                {
                    index += 1
                }
                tokens.append(QueryToken(kind: .identifier(String(characters[start..<index])), position: start))
                continue
            }
            if character.isNumber
                || ((character == "-" || character == ".") && index + 1 < characters.count
                    && characters[index + 1].isNumber && !(tokens.last.map(Self.endsOperand) ?? false))
            {
                index += 1
                while index < characters.count,
                    characters[index].isNumber || characters[index] == "." || characters[index] == "e"
                        || characters[index] == "E"
                        || ((characters[index] == "-" || characters[index] == "+")
                            && (characters[index - 1] == "e" || characters[index - 1] == "E"))
                {
                    index += 1
                }
                tokens.append(QueryToken(kind: .number(String(characters[start..<index])), position: start))
                continue
            }
            if character == "\"" || character == "'" {
                index += 1
                var value = ""
                while index < characters.count, characters[index] != character {
                    if characters[index] == "\\", index + 1 < characters.count {
                        index += 1
                        switch characters[index] {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        default: value.append(characters[index])
                        }
                    } else {
                        value.append(characters[index])
                    }
                    index += 1
                }
                guard index < characters.count else { throw fail("a string is not closed") }
                index += 1
                tokens.append(QueryToken(kind: .string(value), position: start))
                continue
            }
            if character == "$" {
                index += 1
                let digits = index
                while index < characters.count, characters[index].isNumber { index += 1 }
                if index == digits {
                    // `$d`: a SUBQUERY variable.
                    while index < characters.count, characters[index].isLetter || characters[index].isNumber {
                        index += 1
                    }
                    guard index > digits else { throw fail("`$` needs an argument number or a variable name") }
                    tokens.append(QueryToken(kind: .identifier(String(characters[start..<index])), position: start))
                    continue
                }
                guard let number = Int(String(characters[digits..<index])) else { throw fail("a bad argument number") }
                tokens.append(QueryToken(kind: .argument(number), position: start))
                continue
            }
            let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                index += 2
                tokens.append(QueryToken(kind: .symbol(two), position: start))
                continue
            }
            if "=<>!(){},.[]".contains(character) {
                index += 1
                tokens.append(QueryToken(kind: .symbol(String(character)), position: start))
                continue
            }
            throw fail("unexpected character \"\(character)\"")
        }
        tokens.append(QueryToken(kind: .end, position: characters.count))
        return tokens
    }

    /// Whether a token ends an operand, so that a following `-` is a minus sign only after operators.
    private static func endsOperand(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .identifier(let name): !["AND", "OR", "NOT", "IN", "BETWEEN"].contains(name.uppercased())
        case .number, .string, .argument: true
        case .symbol(let symbol): symbol == ")" || symbol == "}"
        case .end: false
        }
    }
}
