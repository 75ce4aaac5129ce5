#if Sync
    import Foundation
    @_spi(StrataSync) import Strata

    /// A subscription's condition as SQL over its type's table (`t`), under the rules of Strata's
    /// queries: what the server evaluates to choose the objects it sends. Values are SQL literals of
    /// the column's type (the connection sets `standard_conforming_strings`, so quoting is doubling
    /// quotes); every test is true or false, never null (nil columns follow `Query`'s rules).
    enum SubscriptionSQL {
        /// - Throws: `.unsupportedQuery` for what the server cannot evaluate as Strata would (`[d]`,
        ///   values of a kind a column cannot hold).
        static func condition(_ condition: SyncCondition, keyTypes: [String: SyncType]) throws(SyncError) -> String {
            switch condition {
            case .constant(let value): return value ? "TRUE" : "FALSE"
            case .and(let lhs, let rhs):
                return
                    "(\(try self.condition(lhs, keyTypes: keyTypes)) AND \(try self.condition(rhs, keyTypes: keyTypes)))"
            case .or(let lhs, let rhs):
                return
                    "(\(try self.condition(lhs, keyTypes: keyTypes)) OR \(try self.condition(rhs, keyTypes: keyTypes)))"
            case .not(let inner): return "(NOT \(try self.condition(inner, keyTypes: keyTypes)))"
            case .comparison(let comparison): return try self.comparison(comparison, keyTypes: keyTypes)
            }
        }

        private static func comparison(_ comparison: SyncComparison, keyTypes: [String: SyncType]) throws(SyncError)
            -> String
        {
            guard !comparison.diacriticInsensitive else {
                throw .unsupportedQuery(
                    "\(text(of: .comparison(comparison))): [d] has no counterpart on the server (no unaccent)")
            }
            var wrapped = comparison.type
            if case .optional(let inner) = wrapped { wrapped = inner }
            let sqlType = ServerSchema.sqlType(wrapped, keyTypes: keyTypes)
            let isText = wrapped == .string
            let folds = comparison.caseInsensitive && isText
            var column = "t." + ServerSchema.quoted(comparison.property)
            if folds { column = "lower(\(column))" }
            func value(_ value: SyncValue) throws(SyncError) -> String? {
                if folds, case .string(let string) = value { return try literal(.string(string.lowercased()), sqlType) }
                return try literal(value, sqlType)
            }
            func equal(_ operand: SyncValue) throws(SyncError) -> String {
                guard let operand = try value(operand) else { return "\(column) IS NULL" }
                return "coalesce(\(column) = \(operand), false)"
            }
            let collation = isText ? " COLLATE \"C\"" : ""
            // Only `String?` orders nil (before every string), as Strata's queries do.
            let ordersNil = comparison.type == .optional(.string)
            switch comparison.operator {
            case .equal:
                return try equal(comparison.values.first ?? .null)
            case .notEqual:
                return "(NOT \(try equal(comparison.values.first ?? .null)))"
            case .oneOf:
                guard !comparison.values.isEmpty else { return "FALSE" }
                var tests: [String] = []
                for operand in comparison.values { tests.append(try equal(operand)) }
                return "(" + tests.joined(separator: " OR ") + ")"
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                let symbol =
                    switch comparison.operator {
                    case .less: "<"
                    case .lessOrEqual: "<="
                    case .greater: ">"
                    default: ">="
                    }
                let below = comparison.operator == .less || comparison.operator == .lessOrEqual
                guard let operand = try value(comparison.values.first ?? .null) else {
                    guard ordersNil else { return "FALSE" }
                    // nil sorts first: `< nil` nothing, `<= nil` nil, `> nil` any string, `>= nil` all.
                    switch comparison.operator {
                    case .less: return "FALSE"
                    case .lessOrEqual: return "\(column) IS NULL"
                    case .greater: return "\(column) IS NOT NULL"
                    default: return "TRUE"
                    }
                }
                let test = "coalesce(\(column)\(collation) \(symbol) \(operand)\(collation), false)"
                return ordersNil && below ? "(\(column) IS NULL OR \(test))" : test
            case .beginsWith, .endsWith, .contains, .like:
                guard isText, case .string(var needle)? = comparison.values.first else {
                    throw .unsupportedQuery(
                        "\(text(of: .comparison(comparison))): a string match needs a String property")
                }
                if folds { needle = needle.lowercased() }
                let quoted = try literal(.string(needle), "text") ?? "''"
                let test =
                    switch comparison.operator {
                    case .beginsWith: "starts_with(\(column), \(quoted))"
                    case .endsWith: "right(\(column), \(needle.unicodeScalars.count)) = \(quoted)"
                    case .contains: "strpos(\(column), \(quoted)) > 0"
                    default: "\(column) LIKE \(try literal(.string(likePattern(needle)), "text") ?? "''") ESCAPE '\\'"
                    }
                return "coalesce(\(test), false)"
            }
        }

        /// Strata's pattern (`*` any run, `?` one character) as SQL's (`%`, `_`), SQL's own wildcards
        /// and the escape character escaped.
        static func likePattern(_ pattern: String) -> String {
            var sql = ""
            for character in pattern {
                switch character {
                case "*": sql += "%"
                case "?": sql += "_"
                case "%", "_", "\\": sql += "\\" + String(character)
                default: sql.append(character)
                }
            }
            return sql
        }

        /// `value` as a literal of the SQL type `type`; nil for nil.
        static func literal(_ value: SyncValue, _ type: String) throws(SyncError) -> String? {
            func quoted(_ text: String) -> String {
                "'" + text.replacingOccurrences(of: "'", with: "''") + "'::" + type
            }
            switch value {
            case .null: return nil
            case .bool(let value): return value ? "TRUE" : "FALSE"
            case .integer(let value): return quoted(String(value))
            case .unsigned(let value): return quoted(String(value))
            case .double(let value):
                if value.isNaN { return quoted("NaN") }
                if value.isInfinite { return quoted(value < 0 ? "-Infinity" : "Infinity") }
                return quoted("\(value)")
            case .string(let value):
                guard !value.unicodeScalars.contains("\0") else {
                    throw .unsupportedQuery("a string with a NUL character cannot be sent to the server")
                }
                return quoted(value)
            case .data(let value): return quoted("\\x" + value.map { String(format: "%02x", $0) }.joined())
            case .date(let value): return "to_timestamp(\(value.timeIntervalSince1970))"
            case .uuid(let value): return quoted(value.uuidString.lowercased())
            case .decimal(let value): return quoted("\(value)")
            case .decimal128(let value): return quoted("\(value)")
            case .objectId(let value): return quoted(value.stringValue)
            case .list, .set, .map, .mapPatch:
                throw .unsupportedQuery("a collection cannot be compared on the server")
            }
        }

        /// The condition as the string language writes it (what `SyncSubscription.query` shows).
        static func text(of condition: SyncCondition) -> String {
            switch condition {
            case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
            case .and(let lhs, let rhs): return "(\(text(of: lhs)) AND \(text(of: rhs)))"
            case .or(let lhs, let rhs): return "(\(text(of: lhs)) OR \(text(of: rhs)))"
            case .not(let inner): return "NOT \(text(of: inner))"
            case .comparison(let comparison):
                let symbol =
                    switch comparison.operator {
                    case .equal: "=="
                    case .notEqual: "!="
                    case .less: "<"
                    case .lessOrEqual: "<="
                    case .greater: ">"
                    case .greaterOrEqual: ">="
                    case .oneOf: "IN"
                    case .beginsWith: "BEGINSWITH"
                    case .endsWith: "ENDSWITH"
                    case .contains: "CONTAINS"
                    case .like: "LIKE"
                    }
                var options = comparison.caseInsensitive ? "c" : ""
                if comparison.diacriticInsensitive { options += "d" }
                let values = comparison.values.map(text(of:))
                let operand =
                    comparison.operator == .oneOf ? "{" + values.joined(separator: ", ") + "}" : values.first ?? "nil"
                return "\(comparison.property) \(symbol)\(options.isEmpty ? "" : "[\(options)]") \(operand)"
            }
        }

        private static func text(of value: SyncValue) -> String {
            switch value {
            case .null: "nil"
            case .string(let string):
                "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            case .bool(let value): value ? "true" : "false"
            case .integer(let value): String(value)
            case .unsigned(let value): String(value)
            case .double(let value): "\(value)"
            case .uuid(let value): "uuid(\(value.uuidString))"
            case .objectId(let value): "oid(\(value.stringValue))"
            case .date(let value): "\(value)"
            default: "\(value)"
            }
        }
    }
#endif
