/// A full-text condition on a property (`body TEXT 'swift -sqlite'`, `$0.body.matches("swift")`): the
/// query read with the tokenizer of the property's index. The index answers it when the property is
/// the queried type's own (`CandidatePlan`); elsewhere (through a link, under `NOT` or `OR`) each
/// row's text is read with the same tokenizer and tested, which gives the same answer.
struct FullTextCondition {
    let query: TextQuery
    let settings: FullTextSettings

    /// The comparison `path TEXT text`.
    ///
    /// - Throws: a message naming the property when it has no full-text index, or the query's syntax
    ///   error (not `lenient`).
    static func comparison(_ path: PropertyPath, _ text: String, lenient: Bool) throws(FullTextConditionError)
        -> Comparison
    {
        guard let step = path.steps.last, path.mapKey == nil, !path.countsList else {
            throw FullTextConditionError(description: "TEXT needs a String property with a full-text index")
        }
        let property = step.schema.properties[step.property]
        guard let settings = property.fullText else {
            throw FullTextConditionError(
                description: "\(step.schema.name).\(property.name) has no full-text index "
                    + "(declare it @Persisted(indexed: .fullText))")
        }
        guard let tokenizer = settings.tokenizer else {
            throw FullTextConditionError(
                description: settings.missingTokenizer(of: "\(step.schema.name).\(property.name)"))
        }
        let query: TextQuery
        do {
            query = try TextQuery(text, tokenizer: tokenizer, lenient: lenient)
        } catch {
            throw FullTextConditionError(description: "\(step.schema.name).\(property.name) TEXT: \(error)")
        }
        let comparison = Comparison(
            path: path,
            test: { bytes in
                guard let bytes else { return false }
                guard let string = UTF8Text.string(bytes) else { return nil }
                return query.matches(DocumentTerms(string, tokenizer: tokenizer))
            }, access: nil, text: "\(path) TEXT \"\(text)\"")
        comparison.fullText = FullTextCondition(query: query, settings: settings)
        return comparison
    }
}

struct FullTextConditionError: Error, CustomStringConvertible {
    let description: String
}

extension Query where Value: _FullTextIndexable {
    /// Whether the text holds the words of a full-text query: the string language's `TEXT`, answered by
    /// the property's full-text index (`@Persisted(indexed: .fullText)`).
    ///
    /// ```swift
    /// notes.where { $0.body.matches("swift database -sqlite") }   // every word; none of -sqlite
    /// notes.where { $0.body.matches("\"object database\" data*") } // a phrase; a prefix
    /// ```
    /// Each word is read as the index reads texts (lowercased, diacritics removed, English stemming:
    /// `Databases` finds `database`). A quote left open runs to the end; a query with no word to look
    /// for matches nothing (the string form and `search(_:_:)` throw `.invalidArgument` instead).
    ///
    /// - Warning: Traps when the property has no full-text index, naming it (a mistake in the code, as
    ///   a key path naming no stored property is); `where("body TEXT $0", text)` throws instead.
    public func matches(_ query: String) -> Query<Bool> {
        do {
            return Query<Bool>(.predicate(.comparison(try FullTextCondition.comparison(path, query, lenient: true))))
        } catch {
            let place = QueryBuilding.callSite.map { " (in the where { } at \($0))" } ?? ""
            preconditionFailure("Strata: \(error)\(place)")
        }
    }
}
