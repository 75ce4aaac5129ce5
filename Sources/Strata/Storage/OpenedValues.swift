#if Encryption
    import Foundation

    /// The values one transaction opened, in chunks freed together when it ends.
    final class OpenedValues: @unchecked Sendable {  // a transaction is used by one thread at a time
        private var chunks: [UnsafeMutableRawBufferPointer] = []
        private var used = 0
        /// Buffers whose bytes were kept without a copy (`hold`), and their sizes.
        private var held: [AnyObject] = []
        private var heldBytes = 0
        private let lock = NSLock()  // a split walk's helper reads through the same transaction

        /// The bytes of the chunks and buffers held.
        var bytes: Int { lock.withLock { chunks.reduce(heldBytes) { $0 + $1.count } } }

        /// Keeps `buffer` (of `bytes` bytes) alive with the copies: what points into a buffer that
        /// never changes needs no copy of it.
        func hold(_ buffer: AnyObject, bytes: Int) {
            lock.withLock {
                held.append(buffer)
                heldBytes += bytes
            }
        }

        func keep(_ data: Data) -> UnsafeRawBufferPointer {
            data.withUnsafeBytes { keep($0) }
        }

        func keep(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            lock.withLock { copy(bytes) }
        }

        /// Three copies under one lock (a logged put's key, value and stored key).
        func keep(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ c: UnsafeRawBufferPointer) -> (
            UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer
        ) {
            lock.withLock { (copy(a), copy(b), copy(c)) }
        }

        /// Two copies under one lock.
        func keep(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (
            UnsafeRawBufferPointer, UnsafeRawBufferPointer
        ) {
            lock.withLock { (copy(a), copy(b)) }
        }

        /// Under `lock`.
        private func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            let count = bytes.count
            if chunks.isEmpty || used + count > chunks[chunks.count - 1].count {
                chunks.append(.allocate(byteCount: max(64 << 10, count), alignment: 16))
                used = 0
            }
            let start = chunks[chunks.count - 1].baseAddress! + used
            if count > 0 { start.copyMemory(from: bytes.baseAddress!, byteCount: count) }
            used += count
            return UnsafeRawBufferPointer(start: start, count: count)
        }

        /// Takes `other`'s chunks, to free them with its own.
        func adopt(_ other: OpenedValues) {
            let taken = other.lock.withLock {
                defer { (other.chunks, other.held, other.heldBytes) = ([], [], 0) }
                return (other.chunks, other.held, other.heldBytes)
            }
            lock.withLock {
                chunks.insert(contentsOf: taken.0, at: 0)
                held += taken.1
                heldBytes += taken.2
            }
        }

        deinit {
            for chunk in chunks { chunk.deallocate() }
        }
    }
#endif
