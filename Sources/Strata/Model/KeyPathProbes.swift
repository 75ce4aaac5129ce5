/// How model values take part in resolving a key path (`Query/KeyPathResolver.swift` drives it): a
/// key path is read on recorder objects whose properties hand out probe values; the reads and the
/// objects handed out are noted in the recording of the evaluating task.
protocol KeyPathRecording: AnyObject, Sendable {
    /// The round of the evaluation: which probe values properties hand out.
    var round: Int { get }
    /// Whether links read as nil (instead of as recorders of the linked type).
    var nilLinks: Bool { get }
    /// The objects handed out as probes (recorders for links, lists).
    var issuedObjects: Set<ObjectIdentifier> { get }
    /// A recorder's property was read.
    func noteRead(on recorder: Object, property: Int)
    /// A probe object was handed out by the last read.
    func noteIssued(_ object: AnyObject)
    /// A recorder of the linked type, handed out by a read of a link.
    func linkRecorder(_ type: Object.Type) -> Object?
    /// The value the recorder's own property read last holds (its initial value): the probe of a
    /// type that refuses every sample value.
    func valueOfLastRead() -> Any?
}

enum KeyPathRecordings {
    /// The recording of the key path being evaluated on this task, if any.
    @TaskLocal static var current: (any KeyPathRecording)?
    /// The epoch of a recorder object (never a Store's: epochs count up from 1).
    static let recorderMark = UInt64.max

    /// A collection's probe (a new, empty List, Map or MutableSet), noted as handed out: the key
    /// path must return it unchanged.
    static func issue<Collection: AnyObject>(_ collection: Collection) -> Collection {
        current?.noteIssued(collection)
        return collection
    }

    /// Whether `collection` is a probe the recording handed out.
    static func wasIssued(_ collection: AnyObject) -> Bool {
        current?.issuedObjects.contains(ObjectIdentifier(collection)) ?? false
    }
}

/// The values a recorder hands out, by round: distinct rounds give distinct values wherever the type
/// has them, so that a key path transforming the value returns something else.
enum Probe {
    static let rounds = 3
    /// The round in which optional values (and links, when the key path returns an optional) are nil.
    static let nilRound = 1

    static func integer<T: FixedWidthInteger>(_ round: Int) -> T {
        [43, 17, 0][round % rounds]
    }

    static func floating<T: BinaryFloatingPoint>(_ round: Int) -> T {
        [43.25, -17.5, 0.125][round % rounds]
    }

    static func string(_ round: Int) -> String {
        [" Strata Probe Ä 0 ", "strata-probe-é-1", "STRATA\tPROBE 2"][round % rounds]
    }
}

extension Object {
    /// A recorder's property read: notes which property was read and returns the round's probe.
    @usableFromInline
    final func _recordRead<V: _Persistable>(_ column: Int) -> V {
        guard _epoch == KeyPathRecordings.recorderMark, let recording = KeyPathRecordings.current else {
            preconditionFailure("Strata: reading a column of an unmanaged object")
        }
        recording.noteRead(on: self, property: column)
        return V._strataProbe(recording.round)
    }
}
