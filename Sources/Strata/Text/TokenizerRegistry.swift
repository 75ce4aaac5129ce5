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
    /// number back, and the tokenizer given last.
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
                state.tokenizers[number - 1] = tokenizer
                return number
            }
            precondition(state.tokenizers.count < capacity, "Strata: more than \(capacity) tokenizer names")
            state.tokenizers.append(tokenizer)
            state.numbers[name] = state.tokenizers.count
            return state.tokenizers.count
        }
    }

    /// The name of the tokenizer numbered `number` (nil: none, or forgotten).
    static func name(ofNumber number: Int) -> String? {
        state.withLock { state in
            guard state.tokenizers.indices.contains(number - 1) else { return nil }
            let name = state.tokenizers[number - 1].name
            return state.numbers[name] == number ? name : nil
        }
    }

    /// The tokenizer registered under `name` (nil: none in this process).
    static func tokenizer(named name: String) -> (any TextTokenizer)? {
        state.withLock { state in state.numbers[name].map { state.tokenizers[$0 - 1] } }
    }

    /// Forgets `name` (tests: a file whose tokenizer this process does not have).
    static func forget(_ name: String) {
        state.withLock { state in
            guard let number = state.numbers.removeValue(forKey: name) else { return }
            state.tokenizers[number - 1] = ForgottenTokenizer()
        }
    }

    /// What a forgotten number names: nothing a Store finds.
    private struct ForgottenTokenizer: TextTokenizer {
        var name: String { "" }
        func tokens(of text: String) -> [TextToken] { [] }
    }
}
