import Foundation

/// Finds which `@Persisted` property a key path names (or which chain of to-one links ending in one),
/// the way Realm does: by reading the key path on recording instances. A recorder is an unmanaged
/// instance whose wrappers carry their property index as "column", so a read takes the managed path
/// and lands in `_recordRead`, which notes the property and hands out a *probe*: a distinctive value
/// of the property's type, or for a link a recorder of the linked type.
///
/// The key path is read three times with different probes. It names a stored property only when each
/// read makes one recorded read per object of a chain of links, and returns exactly the last read's
/// probe: a computed property (`var doubled: Int { id * 2 }`), a transformed value or two properties
/// combined read the same properties but return something else, and are refused.
enum KeyPathResolver {
    /// `_epoch` of a recorder; managed objects count epochs from 1, unmanaged ones keep 0.

    /// Key paths are immutable, though not declared Sendable.
    private struct CachedKeyPath: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    /// Resolved paths, or nil for a key path that names no stored property.
    private static let cache = Locked<[CachedKeyPath: PropertyPath?]>([:])

    /// The stored property (or chain of links ending in one) that `keyPath` reads, or nil when it is
    /// anything else: a computed property, a transformed value, several properties, a step past a
    /// stored property (`\.name.count`).
    static func path<Root: Object>(_ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema) -> PropertyPath? {
        let cacheKey = CachedKeyPath(keyPath: keyPath)
        if let cached = cache.withLock({ $0[cacheKey] }) { return cached }
        let found = resolve(keyPath, in: schema)
        cache.withLock { $0[cacheKey] = .some(found) }
        return found
    }

    private static func resolve<Root: Object>(_ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema) -> PropertyPath?
    {
        // Through a link, only `?.` keeps the query's meaning (a nil link matches nothing): a key path
        // that reads through a link yet returns a non-optional value has a default, or forces the link.
        let returnsOptional = type(of: keyPath).valueType is any AnyOptional.Type
        guard let first = record(keyPath, in: schema, round: 0, nilLinks: false),
            record(keyPath, in: schema, round: 2, nilLinks: false) == first,
            first.steps.count == 1 || returnsOptional
        else { return nil }
        // With every link nil, the key path must stop at a link and return nil.
        guard let withNilLinks = record(keyPath, in: schema, round: Probe.nilRound, nilLinks: returnsOptional),
            withNilLinks == first || first.steps.starts(with: withNilLinks.steps)
        else { return nil }
        return first
    }

    /// The path `keyPath` names; traps naming the key path (and `place`, the caller's source location)
    /// when it names no stored property.
    static func pathOrTrap<Root: Object>(_ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema, place: String = "")
        -> PropertyPath
    {
        guard let path = path(keyPath, in: schema) else {
            preconditionFailure(unresolvedMessage(keyPath, schema: schema, place: place))
        }
        return path
    }

    /// Why `keyPath` cannot be used: it names no stored property of `schema`'s type.
    static func unresolvedMessage(_ keyPath: AnyKeyPath, schema: ObjectSchema, place: String = "") -> String {
        "Strata: \(keyPath)\(place.isEmpty ? "" : " (\(place))") does not name one @Persisted property of "
            + "\(schema.name), nor a chain of to-one links ending in one: a computed property, a transformed value "
            + "or two properties combined cannot be queried or observed (filter { } runs Swift on each object)"
    }

    /// The chain of properties `keyPath` reads (the root's, then through to-one links), with what it
    /// returns when read on recorders, whatever it then does with the value (`\.name.uppercased()`):
    /// what a projection observes. Nil when the reads are no chain (two properties, none).
    static func pathRead<Root: Object>(_ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema) -> (
        path: PropertyPath, result: Any, issued: Set<ObjectIdentifier>
    )? {
        let recording = Recording(round: 0, nilLinks: false)
        let root = recording.makeRecorder(schema)
        guard let typed = root as? Root else { return nil }
        defer { recording.unbindRecorders() }
        return KeyPathRecordings.$current.withValue(recording) {
            () -> (path: PropertyPath, result: Any, issued: Set<ObjectIdentifier>)? in
            let result = typed[keyPath: keyPath]
            guard let path = chain(of: recording, from: root) else { return nil }
            return (path, result, recording.issuedObjects)
        }
    }

    /// The path the reads of `recording` walk from `root`: one chain of links; nil otherwise.
    private static func chain(of recording: Recording, from root: Object) -> PropertyPath? {
        guard !recording.reads.isEmpty else { return nil }
        var path = PropertyPath()
        var expected = ObjectIdentifier(root)
        for (index, read) in recording.reads.enumerated() {
            guard read.recorder == expected else { return nil }
            path = path.appending(read.schema, read.property)
            if index < recording.reads.count - 1 {
                guard let next = read.issued else { return nil }  // a read past a value, or a second read
                expected = next
            }
        }
        return path
    }

    // MARK: Recording

    /// One read of the key path with the probes of `round` (links nil with `nilLinks`); nil unless it
    /// read one chain and returned the last read's probe.
    private static func record<Root: Object>(
        _ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema, round: Int, nilLinks: Bool
    ) -> PropertyPath? {
        let recording = Recording(round: round, nilLinks: nilLinks)
        let root = recording.makeRecorder(schema)
        guard let typed = root as? Root else {
            preconditionFailure("Strata: \(keyPath) is not a key path of \(schema.name)")
        }
        defer { recording.unbindRecorders() }
        return KeyPathRecordings.$current.withValue(recording) { () -> PropertyPath? in
            let result = typed[keyPath: keyPath]
            // The reads must walk one chain: the root, then the recorder each link read handed out.
            guard let path = chain(of: recording, from: root), let last = recording.reads.last else { return nil }
            // What the key path returns must be exactly what the last read handed out.
            guard last.schema.accessors[last.property].kind.isProbe(result, round: round) else { return nil }
            return path
        }
    }

    /// The reads of one evaluation of a key path, on the thread evaluating it.
    // used by the one thread that evaluates the key path
    final class Recording: KeyPathRecording, @unchecked Sendable {
        let round: Int
        /// Whether links read as nil (instead of as recorders of the linked type).
        let nilLinks: Bool
        private(set) var reads:
            [(recorder: ObjectIdentifier, schema: ObjectSchema, property: Int, issued: ObjectIdentifier?)] = []
        private var recorders: [(object: Object, schema: ObjectSchema)] = []
        /// The objects handed out as probes (recorders for links, lists): the key path must return
        /// one of them unchanged.
        private(set) var issuedObjects = Set<ObjectIdentifier>()

        init(round: Int, nilLinks: Bool) {
            self.round = round
            self.nilLinks = nilLinks
        }

        /// An unmanaged instance of the type whose wrappers carry their property index as column.
        func makeRecorder(_ schema: ObjectSchema) -> Object {
            let recorder = schema.type.init()
            recorder._epoch = KeyPathRecordings.recorderMark
            let base = Unmanaged.passUnretained(recorder).toOpaque()
            for (index, accessor) in schema.accessors.enumerated() {
                (base + accessor.columnOffset).storeBytes(of: index, as: Int.self)
            }
            recorders.append((recorder, schema))
            return recorder
        }

        func noteRead(on recorder: Object, property: Int) {
            guard let schema = recorders.first(where: { $0.object === recorder })?.schema else {
                preconditionFailure("Strata: reading a column of an unmanaged object")
            }
            reads.append((ObjectIdentifier(recorder), schema, property, nil))
        }

        /// A probe object handed out by the last read (a recorder of the linked type, or a list).
        func noteIssued(_ object: AnyObject) {
            issuedObjects.insert(ObjectIdentifier(object))
            if !reads.isEmpty, object is Object { reads[reads.count - 1].issued = ObjectIdentifier(object) }
        }

        /// A recorder of the linked type, handed out by a read of a link.
        func linkRecorder(_ type: Object.Type) -> Object? {
            // not a valid model: the key path resolves to nothing
            guard let schema = try? ObjectSchema.of(type) else { return nil }
            let recorder = makeRecorder(schema)
            noteIssued(recorder)
            return recorder
        }

        func valueOfLastRead() -> Any? {
            guard let read = reads.last,
                let recorder = recorders.first(where: { ObjectIdentifier($0.object) == read.recorder })
            else { return nil }
            return read.schema.accessors[read.property].unmanagedValue(of: recorder.object)
        }

        /// Unbinds the recorders before they go, like any unmanaged object.
        func unbindRecorders() {
            for (recorder, schema) in recorders {
                let base = Unmanaged.passUnretained(recorder).toOpaque()
                for accessor in schema.accessors { (base + accessor.columnOffset).storeBytes(of: -1, as: Int.self) }
            }
        }
    }
}

/// Optional, seen without its wrapped type.
protocol AnyOptional {}
extension Optional: AnyOptional {}
