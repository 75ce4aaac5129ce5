/// The tokenizers `@Persisted(indexed: .fullText(tokenizer:))` declared in this process, by name
/// and by number: a property's attributes are one word (`PropertyAttributes`), so they carry the
/// tokenizer's number, and the file's schema records its name (`FullTextSettings.tokenizerName`).
/// A Store finds an index's tokenizer here by the name its file records.
enum TokenizerRegistry {
    private struct State {
        var tokenizers: [any TextTokenizer] = []
        var numbers: [String: Int] = [:]
    }

    private static let state = Locked(State())

    /// The numbers fit the 16 bits `PropertyIndex.fullText(tokenizer:)` gives them (0 is none).
    static let capacity = 0xFFFF

    /// Records `tokenizer` under its name: its number, from 1. A name registered again gets its
    /// number back and keeps its first tokenizer (one name, one tokenizer: `TextTokenizer.name`).
    /// Called for every object made of a type that declares one (its property's initializer), so a
    /// name met before costs one lookup and writes nothing.
    ///
    /// - Warning: Traps when the name is another type's (two tokenizers would read one index), or when
    ///   65,535 names are registered.
    static func register(_ tokenizer: some TextTokenizer) -> Int {
        let name = tokenizer.name
        return state.withLock { state in
            if let number = state.numbers[name] {
                let registered = type(of: state.tokenizers[number - 1])
                precondition(
                    registered == type(of: tokenizer),
                    "Strata: the tokenizers \(registered) and \(type(of: tokenizer)) are both named \"\(name)\": "
                        + "give each its own name")
                return number
            }
            precondition(state.tokenizers.count < capacity, "Strata: more than \(capacity) tokenizer names")
            state.tokenizers.append(tokenizer)
            state.numbers[name] = state.tokenizers.count
            return state.tokenizers.count
        }
    }

    /// The name of the tokenizer numbered `number` (one `register` gave: numbers are never taken back).
    static func name(ofNumber number: Int) -> String {
        state.withLock { state in state.tokenizers[number - 1].name }
    }

    /// The tokenizer registered under `name` (nil: none in this process).
    static func tokenizer(named name: String) -> (any TextTokenizer)? {
        state.withLock { state in state.numbers[name].map { state.tokenizers[$0 - 1] } }
    }
}
