import Testing

@testable import Strata

@Suite("Stored text back into Strings")
struct UTF8TextTests {
    @Test("ASCII, other scripts and every kind of invalid UTF-8, at every position past the word loop")
    func decodesAsValidatingWould() {
        let samples: [[UInt8]] = [
            [], Array("a".utf8), Array("value-123456".utf8), Array("exactly8".utf8), Array("héllo wörld".utf8),
            Array("😀 emoji after eight".utf8), [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x41],
            [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBF, 0xBD],
        ]
        for sample in samples {
            for prefix in 0..<10 {
                let bytes = Array(repeating: UInt8(ascii: "x"), count: prefix) + sample
                bytes.withUnsafeBytes { raw in
                    let expected = String(validating: raw, as: UTF8.self)
                    #expect(UTF8Text.string(raw) == expected, "\(bytes)")
                    #expect(UTF8Text.isValid(raw) == (expected != nil), "\(bytes)")
                }
            }
        }
    }
}
