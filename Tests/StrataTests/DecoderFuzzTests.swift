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
        var random = SplitMix64(state: 31)
        var runs = 0
        var decodedRows = 0
        let deadline = Date().addingTimeInterval(Self.seconds)
        while Date() < deadline {
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
                if Self.decode(input, binding: binding) { decodedRows += 1 }
                runs += 1
            }
        }
        print("decoder fuzzing: \(runs) inputs in \(Self.seconds) s, \(decodedRows) decoded as whole rows")
        #expect(runs > 1_000)
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
