import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A seeded random fuzz loop over the row and key decoders, run for a fixed time (libFuzzer's
/// `-sanitize=fuzzer` does not build with this toolchain's Linux runtime here). Inputs are random
/// bytes and mutations of real rows: flipped bytes, truncations, extensions. Every input must be
/// rejected with an error or decode; a crash or a trap fails the run. STRATA_FUZZ_SECONDS sets the
/// time (CI: 3 s; `make soak`: 60 s).
@Suite("Decoder fuzzing", .fixtureChecks, .offThePool)
struct DecoderFuzzTests {
    static let minimumInputs = 5_000
    static var seconds: Double { ProcessInfo.processInfo.environment["STRATA_FUZZ_SECONDS"].flatMap(Double.init) ?? 3 }

    @Test("row, column, list and key decoders reject or decode every input, for a fixed time")
    func fuzzDecoders() throws {
        let fixture = Fixture([AllTypes.self])
        let store = try fixture.open()
        try store.write {
            for index in 0..<20 {
                let object = AllTypes()
                object.key = String(repeating: "k", count: index * 7)
                object.string = String(repeating: "é", count: index * 11)
                object.int = index * 1_000_003
                object.optInt = index.isMultiple(of: 2) ? nil : index
                object.data = Data(repeating: UInt8(index), count: index * 13)
                try store.add(object)
            }
        }
        let binding = try store.core.binding(for: AllTypes.self)
        let seeds: [[UInt8]] = try store.objects(AllTypes.self).keys().map { key in
            guard let row = try store.core.rows.fetchRow(binding, key: key) else { return [] }
            return Array(row.bytes)
        }
        let keySeeds = store.objects(AllTypes.self).keys().map { $0.withBytes { Array($0) } }
        #expect(seeds.allSatisfy { Self.decode($0, binding: binding) }, "every real row decodes")
        Self.fuzz(seeds: seeds, keySeeds: keySeeds, seed: 31) { Self.decode($0, binding: binding) }
    }

    @Test("decoders of the model types (Map, MutableSet, AnyValue, Decimal128, ObjectId) reject or decode every input")
    func fuzzModelTypeDecoders() throws {
        let fixture = Fixture([Contact.self, Setting.self])
        let store = try fixture.open()
        try store.write {
            for index in 0..<10 {
                let contact = Contact(name: "c\(index)")
                for key in 0..<index { contact.phones["k\(key)"] = String(repeating: "p", count: key) }
                contact.scores["n"] = index.isMultiple(of: 2) ? .some(nil) : index
                contact.prices.insert(objectsIn: (0..<index).map { Decimal128($0) / 7 })
                contact.tags.insert(objectsIn: (0..<index).map { "t\($0)" })
                try store.add(contact)
                let setting = Setting("s\(index)", AnyValueTests.samples[index % AnyValueTests.samples.count])
                setting.history.append(objectsIn: AnyValueTests.samples.prefix(index))
                try store.add(setting)
            }
        }
        let bindings = [try store.core.binding(for: Contact.self), try store.core.binding(for: Setting.self)]
        var seeds: [[UInt8]] = []
        for binding in bindings {
            for (_, row) in try store.core.rows.allRows(binding) { seeds.append(Array(row.bytes)) }
        }
        #expect(
            seeds.allSatisfy { row in bindings.contains { Self.decode(row, binding: $0) } }, "every real row decodes")
        Self.fuzz(seeds: seeds, keySeeds: seeds, seed: 131) { input in
            input.withUnsafeBytes { raw in
                let context = _DecodeContext(owner: nil, column: 0)
                _ = try? Map<String, String>._strataDecodeColumn(raw, in: context)
                _ = try? Map<String, AnyValue>._strataDecodeColumn(raw, in: context)
                _ = try? MutableSet<Decimal128>._strataDecodeColumn(raw, in: context)
                _ = try? AnyValue._strataDecodeColumn(raw, in: context)
                _ = try? ObjectId._strataDecodeColumn(raw, in: context)
                _ = try? Decimal128._strataDecodeColumn(raw, in: context)
                for type in [PropertyType.map(.string), .set(.decimal128), .mixed, .map(.optional(.int64))] {
                    _ = try? DynamicValue.decode(raw, type: type) { _, _ in nil }
                }
            }
            return bindings.contains { Self.decode(input, binding: $0) }
        }
    }

    /// Decodes random bytes and mutations of the seeds (flipped bytes, truncations, extensions) for
    /// `seconds`, and at least `minimumInputs` of them however slow the machine (a loaded one ran
    /// 1,000 in 3 seconds).
    private static func fuzz(seeds: [[UInt8]], keySeeds: [[UInt8]], seed: UInt64, decode: ([UInt8]) -> Bool) {
        var random = SplitMix64(state: seed)
        var runs = 0
        var decodedRows = 0
        let deadline = Date().addingTimeInterval(Self.seconds)
        while Date() < deadline || runs < Self.minimumInputs {
            for _ in 0..<200 {
                var input =
                    Bool.random(using: &random)
                    ? seeds.randomElement(using: &random)! : keySeeds.randomElement(using: &random)!
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    input = (0..<Int.random(in: 0...96, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    }
                case 1: if !input.isEmpty { input.removeLast(Int.random(in: 1...input.count, using: &random)) }
                case 2:
                    input += (0..<Int.random(in: 1...16, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    }
                default:
                    for _ in 0..<Int.random(in: 1...4, using: &random) where !input.isEmpty {
                        input[Int.random(in: 0..<input.count, using: &random)] ^= UInt8.random(
                            in: 1...255, using: &random)
                    }
                }
                if decode(input) { decodedRows += 1 }
                runs += 1
            }
        }
        print("decoder fuzzing: \(runs) inputs in \(Self.seconds) s, \(decodedRows) decoded as whole rows")
    }

    /// Runs every decoder on `input`; returns whether it decoded as a whole row.
    private static func decode(_ input: [UInt8], binding: TableBinding) -> Bool {
        input.withUnsafeBytes { raw in
            _ = try? RowKey(stored: raw, kind: .string)
            _ = try? RowKey(stored: raw, kind: .integer)
            _ = try? ListFormat.elements(raw)
            _ = try? String._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))
            _ = try? Decimal._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))
            _ = try? List<String>._strataDecodeColumn(raw, in: _DecodeContext(owner: nil, column: 0))
            guard let row = try? RowView(validating: raw, expectedColumns: binding.columnCount) else { return false }
            do {
                for (column, accessor) in binding.columnAccessors.enumerated() {
                    _ = try accessor.kind.decodeForDescription(
                        try row.column(column), in: _DecodeContext(owner: nil, column: column))
                }
                return true
            } catch {
                return false
            }
        }
    }
}
