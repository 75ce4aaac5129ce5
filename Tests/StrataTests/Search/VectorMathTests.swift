import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The distance kernels (`VectorMath`): the wide one (AVX2 and FMA, where this CPU has them) and the
/// portable one (Swift's SIMD) each equal a plain sum in double precision, for every length from 0 to
/// 80 and longer ones (each loop of a kernel and its tails), at every alignment of the bytes.
@Suite struct VectorMathTests {
    typealias Kernel = (UnsafeRawPointer, UnsafeRawPointer, Int) -> Float

    static var dots: [(String, Kernel)] {
        var kernels: [(String, Kernel)] = [("portable", { VectorMath.portableDot($0, $1, count: $2) })]
        if VectorMath.wide { kernels.append(("wide", { VectorMath.dot($0, $1, count: $2) })) }
        return kernels
    }

    static var squaredDistances: [(String, Kernel)] {
        var kernels: [(String, Kernel)] = [
            ("portable", { VectorMath.portableSquaredDistance($0, $1, count: $2) })
        ]
        if VectorMath.wide { kernels.append(("wide", { VectorMath.squaredDistance($0, $1, count: $2) })) }
        return kernels
    }

    @Test func eachKernelEqualsAPlainSum() {
        var random = SplitMix64(state: 7)
        let lengths = Array(0...80) + [95, 127, 128, 129, 384, 1_000, 1_537]
        for count in lengths {
            let a = (0..<count).map { _ in Float.random(in: -2...2, using: &random) }
            let b = (0..<count).map { _ in Float.random(in: -2...2, using: &random) }
            var dot = 0.0
            var squared = 0.0
            for index in 0..<count {
                let x = Double(a[index])
                let y = Double(b[index])
                dot += x * y
                squared += (x - y) * (x - y)
            }
            // Float rounding of `count` products of at most 4, summed in some order.
            let tolerance = 1e-5 * Double(count + 1) * 4
            for offset in [0, 1, 4, 13] {
                Self.withBytes(a, b, offset: offset) { x, y in
                    for (name, kernel) in Self.dots {
                        let found = Double(kernel(x, y, count))
                        #expect(
                            abs(found - dot) <= tolerance,
                            "\(name) dot, \(count) floats at +\(offset): \(found) ≠ \(dot)")
                    }
                    for (name, kernel) in Self.squaredDistances {
                        let found = Double(kernel(x, y, count))
                        #expect(
                            abs(found - squared) <= tolerance * 4,
                            "\(name) squared distance, \(count) floats at +\(offset): \(found) ≠ \(squared)")
                    }
                }
            }
        }
    }

    /// `a` and `b` copied `offset` bytes past an aligned start (the map's values are 2-byte aligned).
    static func withBytes(
        _ a: [Float], _ b: [Float], offset: Int, _ body: (UnsafeRawPointer, UnsafeRawPointer) -> Void
    ) {
        let bytes = a.count * 4
        let x = UnsafeMutableRawPointer.allocate(byteCount: bytes + 64, alignment: 64)
        let y = UnsafeMutableRawPointer.allocate(byteCount: bytes + 64, alignment: 64)
        defer {
            x.deallocate()
            y.deallocate()
        }
        if bytes > 0 {
            a.withUnsafeBytes { (x + offset).copyMemory(from: $0.baseAddress!, byteCount: bytes) }
            b.withUnsafeBytes { (y + offset).copyMemory(from: $0.baseAddress!, byteCount: bytes) }
        }
        body(x + offset, y + offset)
    }
}
