import Foundation

extension QueryOperator {
    init(_ op: ComparisonOperator) {
        switch op {
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        case .less: self = .less
        case .lessOrEqual: self = .lessOrEqual
        case .greater: self = .greater
        case .greaterOrEqual: self = .greaterOrEqual
        }
    }
}

extension ComparisonOperator {
    /// The comparison `op` names; nil for string operators and `IN`.
    init?(_ op: QueryOperator) {
        guard let found = Self.allCases.first(where: { QueryOperator($0) == op }) else { return nil }
        self = found
    }
}

extension PredicateEvaluator {
    /// Whether `@sum`, `@avg`, `@min`, `@max` apply to values of `type`.
    static func isNumeric(_ type: PropertyType) -> Bool {
        switch type.unwrapped {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .float, .double, .decimal, .decimal128,
            .date:
            true
        default: false
        }
    }
}

/// `==` (with options), `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE` (`*` any run, `?` one), with `[c]`
/// (case folded) and `[d]` (diacritics folded); nil never matches.
struct StringMatch {
    let op: QueryOperator
    let needle: String
    let options: QueryStringOptions

    init(_ op: QueryOperator, _ needle: String, options: QueryStringOptions) {
        self.op = op
        self.options = options
        self.needle = Self.fold(needle, options)
    }

    /// `[d]` drops diacritics (Foundation's folding, no locale); `[c]` compares `lowercased()` forms,
    /// character by character as Realm does (no "ß" to "ss").
    static func fold(_ string: String, _ options: QueryStringOptions) -> String {
        var folded = string
        if options.contains(.diacriticInsensitive) {
            folded = folded.folding(options: .diacriticInsensitive, locale: nil)
        }
        if options.contains(.caseInsensitive) { folded = folded.lowercased() }
        return folded
    }

    /// The test of a column's bytes (a null string never matches).
    var test: ColumnTest { columnPredicate.test }

    /// The test as a scan runs it (`TextPredicate`).
    var columnPredicate: ColumnPredicate { ColumnPredicate(text: self) }

    /// The match of a row's stored bytes made a `String` and folded (nil: not UTF-8): what `TextMatch`
    /// leaves.
    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard let string = UTF8Text.string(bytes) else { return nil }
        return matches(Self.fold(string, options))
    }

    func matches(_ string: String) -> Bool {
        switch op {
        case .beginsWith: string.utf8.starts(with: needle.utf8)
        case .endsWith: string.utf8.reversed().starts(with: needle.utf8.reversed())
        case .contains: needle.isEmpty || string.utf8.firstRange(of: needle.utf8) != nil
        case .equal: string.utf8.elementsEqual(needle.utf8)
        default: Self.glob(Array(string), Array(needle), star: "*", any: "?") { $0 == $1 }
        }
    }

    /// Glob matching of `*` (any run) and `?` (one element), for Characters here and for ASCII bytes
    /// (`TextMatch`): `*` is a wildcard even against a `*` of the value. `equal` compares a pattern
    /// element with a value element.
    @inline(__always)
    static func glob<Value: RandomAccessCollection, Pattern: RandomAccessCollection>(
        _ value: Value, _ pattern: Pattern, star: Pattern.Element, any: Pattern.Element,
        equal: (Pattern.Element, Value.Element) -> Bool
    ) -> Bool where Pattern.Element: Equatable, Value.Index == Int, Pattern.Index == Int {
        var (s, p) = (value.startIndex, pattern.startIndex)
        var (starAt, mark) = (-1, 0)
        while s < value.endIndex {
            if p < pattern.endIndex, pattern[p] == star {
                starAt = p
                mark = s
                p += 1
            } else if p < pattern.endIndex, pattern[p] == any || equal(pattern[p], value[s]) {
                s += 1
                p += 1
            } else if starAt >= 0 {
                p = starAt + 1
                mark += 1
                s = mark
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == star { p += 1 }
        return p == pattern.endIndex
    }
}
