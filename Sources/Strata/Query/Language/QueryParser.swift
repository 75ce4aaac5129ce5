import Foundation

/// Parses the string language (a recursive descent over `QueryLexer`'s tokens):
///
/// ```
/// query      := condition clause*              clause := SORT(path ASC|DESC, …) | DISTINCT(path, …) | LIMIT(n)
/// condition  := and (OR and)*                  and := not (AND not)*        not := NOT not | primary
/// primary    := ( condition ) | TRUEPREDICATE | FALSEPREDICATE | [ANY|SOME|ALL|NONE] operand op operand
///             | operand BETWEEN {operand, operand}
/// operand    := path | literal | $n | {operand, …} | SUBQUERY(path, $x, condition).@count
/// path       := name ( .name | ['key'] )*      ['key']: a Map's value under the key
/// op         := == = != <> < <= > >= BEGINSWITH ENDSWITH CONTAINS LIKE IN, string ops with [c] [d] [cd]
/// ```
struct QueryParser {
    private let text: String
    private let tokens: [QueryToken]
    private var index = 0

    init(_ text: String) throws(StoreError) {
        self.text = text
        tokens = try QueryLexer.tokens(text)
    }

    static func parse(_ text: String) throws(StoreError) -> ParsedQuery {
        var parser = try QueryParser(text)
        return try parser.query()
    }

    private var current: QueryToken { tokens[index] }

    private func fail(_ message: String, at position: Int? = nil) -> StoreError {
        .invalidArgument("query \"\(text)\", at \(position ?? current.position): \(message)")
    }

    private mutating func advance() -> QueryToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }
    /// The token `offset` places after the current one, if any.
    private func peek(_ offset: Int) -> QueryToken? { index + offset < tokens.count ? tokens[index + offset] : nil }
    private func isKeyword(_ keyword: String) -> Bool { current.keyword == keyword }

    private mutating func expect(_ symbol: String) throws(StoreError) {
        guard isSymbol(symbol) else { throw fail("expected \"\(symbol)\"\(describeCurrent)") }
        _ = advance()
    }

    private var describeCurrent: String {
        switch current.kind {
        case .end: ", found the end"
        case .identifier(let name): ", found \(name)"
        case .number(let number): ", found \(number)"
        case .string(let string): ", found \"\(string)\""
        case .argument(let number): ", found $\(number)"
        case .symbol(let symbol): ", found \"\(symbol)\""
        }
    }

    private static let clauseKeywords: Set<String> = ["SORT", "DISTINCT", "LIMIT"]

    mutating func query() throws(StoreError) -> ParsedQuery {
        // Realm Query Language's grammar: a condition first, always (TRUEPREDICATE for every object).
        guard current.kind != .end, !(current.keyword.map(Self.clauseKeywords.contains) ?? false) else {
            throw fail(
                "a query starts with a condition\(describeCurrent) (TRUEPREDICATE matches every object: "
                    + "\"TRUEPREDICATE SORT(name ASC)\")")
        }
        var parsed = ParsedQuery(condition: try condition())
        while let keyword = current.keyword, Self.clauseKeywords.contains(keyword) {
            _ = advance()
            try expect("(")
            switch keyword {
            case "SORT":
                var keys: [(path: [String], ascending: Bool, position: Int)] = []
                repeat {
                    if !keys.isEmpty { _ = advance() }
                    let position = current.position
                    let path = try keyPath()
                    guard let direction = current.keyword,
                        ["ASC", "ASCENDING", "DESC", "DESCENDING"].contains(direction)
                    else {
                        throw fail(
                            "SORT(\(QuerySyntax.text(of: path))) needs a direction, ASC or DESC\(describeCurrent)")
                    }
                    _ = advance()
                    keys.append((path, direction.hasPrefix("ASC"), position))
                } while isSymbol(",")
                parsed.clauses.append(.sort(keys))
            case "DISTINCT":
                var paths: [(path: [String], position: Int)] = []
                repeat {
                    if !paths.isEmpty { _ = advance() }
                    let position = current.position
                    paths.append((try keyPath(), position))
                } while isSymbol(",")
                parsed.clauses.append(.distinct(paths))
            default:
                guard case .number(let digits) = current.kind, let limit = Int(digits), limit >= 0 else {
                    throw fail("LIMIT needs a count\(describeCurrent)")
                }
                _ = advance()
                parsed.clauses.append(.limit(limit))
            }
            try expect(")")
        }
        guard current.kind == .end else { throw fail("unexpected text\(describeCurrent)") }
        return parsed
    }

    mutating func condition() throws(StoreError) -> QueryNode {
        var node = try conjunction()
        while isKeyword("OR") || isSymbol("||") {
            _ = advance()
            node = .or(node, try conjunction())
        }
        return node
    }

    private mutating func conjunction() throws(StoreError) -> QueryNode {
        var node = try negation()
        while isKeyword("AND") || isSymbol("&&") {
            _ = advance()
            node = .and(node, try negation())
        }
        return node
    }

    private mutating func negation() throws(StoreError) -> QueryNode {
        if isKeyword("NOT") || isSymbol("!") {
            _ = advance()
            return .not(try negation())
        }
        return try primary()
    }

    private mutating func primary() throws(StoreError) -> QueryNode {
        if isSymbol("(") {
            _ = advance()
            let node = try condition()
            try expect(")")
            return node
        }
        if isKeyword("TRUEPREDICATE") {
            _ = advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            _ = advance()
            return .constant(false)
        }
        var quantifier: QueryNode.Quantifier?
        switch current.keyword {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = .noElement
        default: break
        }
        if quantifier != nil { _ = advance() }
        let position = current.position
        let lhs = try operand()
        if isKeyword("BETWEEN") {
            _ = advance()
            guard case .list(let bounds, _) = try operand(), bounds.count == 2 else {
                throw fail("BETWEEN needs {low, high}", at: position)
            }
            return .between(lhs, bounds[0], bounds[1], position: position)
        }
        let op = try comparisonOperator()
        let options = try stringOptions()
        let rhs = try operand()
        return .comparison(lhs, op, rhs, options: options, quantifier: quantifier, position: position)
    }

    private mutating func comparisonOperator() throws(StoreError) -> QueryOperator {
        let token = advance()
        switch token.kind {
        case .symbol("=="), .symbol("="): return .equal
        case .symbol("!="), .symbol("<>"): return .notEqual
        case .symbol("<"): return .less
        case .symbol("<="), .symbol("=<"): return .lessOrEqual
        case .symbol(">"): return .greater
        case .symbol(">="), .symbol("=>"): return .greaterOrEqual
        default: break
        }
        switch token.keyword {
        case "BEGINSWITH": return .beginsWith
        case "ENDSWITH": return .endsWith
        case "CONTAINS": return .contains
        case "LIKE": return .like
        case "IN": return .in
        case "TEXT": return .text
        default:
            index -= 1
            throw fail("expected a comparison operator\(describeCurrent)")
        }
    }

    private mutating func stringOptions() throws(StoreError) -> QueryStringOptions {
        guard isSymbol("[") else { return [] }
        _ = advance()
        guard let letters = current.keyword, !letters.isEmpty, letters.allSatisfy({ $0 == "C" || $0 == "D" }) else {
            throw fail("expected [c], [d] or [cd]\(describeCurrent)")
        }
        _ = advance()
        try expect("]")
        var options: QueryStringOptions = []
        if letters.contains("C") { options.insert(.caseInsensitive) }
        if letters.contains("D") { options.insert(.diacriticInsensitive) }
        return options
    }

    private mutating func operand() throws(StoreError) -> QueryOperand {
        let token = current
        switch token.kind {
        case .argument(let number):
            _ = advance()
            return .argument(number, position: token.position)
        case .string(let value):
            _ = advance()
            return .literal(value, position: token.position)
        case .number(let digits):
            _ = advance()
            if let integer = Int(digits) { return .literal(integer, position: token.position) }
            guard let double = Double(digits) else { throw fail("bad number \(digits)", at: token.position) }
            return .literal(double, position: token.position)
        case .symbol("{"):
            _ = advance()
            var elements: [QueryOperand] = []
            if !isSymbol("}") {
                elements.append(try operand())
                while isSymbol(",") {
                    _ = advance()
                    elements.append(try operand())
                }
            }
            try expect("}")
            return .list(elements, position: token.position)
        case .identifier:
            switch token.keyword {
            case "TRUE":
                _ = advance()
                return .literal(true, position: token.position)
            case "FALSE":
                _ = advance()
                return .literal(false, position: token.position)
            case "NIL", "NULL":
                _ = advance()
                return .literal(nil, position: token.position)
            case "SUBQUERY":
                return try subquery()
            default:
                return .keyPath(try keyPath(), position: token.position)
            }
        default:
            throw fail("expected a property, a value or an argument\(describeCurrent)")
        }
    }

    private mutating func keyPath() throws(StoreError) -> [String] {
        guard case .identifier(let first) = current.kind else { throw fail("expected a property\(describeCurrent)") }
        _ = advance()
        var names = [first]
        while true {
            if isSymbol(".") {
                _ = advance()
                guard case .identifier(let name) = current.kind else {
                    throw fail("expected a property after \".\"\(describeCurrent)")
                }
                _ = advance()
                names.append(name)
            } else if isSymbol("["), case .string(let key)? = peek(1)?.kind {
                // `phones['home']`: a Map's value under a key (`QuerySyntax.mapKeyName`).
                _ = advance()
                _ = advance()
                try expect("]")
                names.append(QuerySyntax.mapKeyName(key))
            } else {
                return names
            }
        }
    }

    private mutating func subquery() throws(StoreError) -> QueryOperand {
        let position = current.position
        _ = advance()
        try expect("(")
        let collection = try keyPath()
        try expect(",")
        guard case .identifier(let variable) = current.kind, variable.hasPrefix("$") else {
            throw fail("SUBQUERY needs a variable such as $x\(describeCurrent)")
        }
        _ = advance()
        try expect(",")
        let inner = try condition()
        try expect(")")
        try expect(".")
        guard isKeyword("@COUNT") || isKeyword("@SIZE") else { throw fail("SUBQUERY(…) is followed by .@count") }
        _ = advance()
        return .subqueryCount(collection: collection, variable: variable, condition: inner, position: position)
    }
}
