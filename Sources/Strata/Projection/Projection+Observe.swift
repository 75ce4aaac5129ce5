import Dispatch

extension ProjectionObservable {
    /// Observes the projection: `.change` with the projected properties a write changed, `.deleted`
    /// when the root object is deleted; delivered as `Object.observe` delivers.
    ///
    /// ```swift
    /// let token = try view.observe(keyPaths: ["name"]) { change in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }
    /// }
    /// ```
    /// `keyPaths` names projected properties (all of them when nil or empty); each observes the root
    /// properties its key path reads, through links and `projectTo`. A change is reported under
    /// every projected property reading the root property that changed, with its new projected
    /// value; the old value too for a property that is one stored property as it is (nil for a
    /// transformed value, a link's property, a projected collection). Changes of properties the
    /// projection does not read notify nothing.
    ///
    /// - Throws: as `Object.observe`: `.notManaged`, `.invalidated`, `.deletedInAnotherThread`,
    ///   `.wrongThread`; `.invalidArgument` for a name the projection does not have.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil, _ block: @escaping (ObjectChange<Self>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try observe(labels: keyPaths, on: queue, block)
    }

    /// As `observe(keyPaths:on:_:)`, naming projected properties by key path (`[\PersonView.name]`).
    /// A key path reading several projected properties observes each.
    ///
    /// - Throws: as `observe(keyPaths:on:_:)`; `.invalidArgument` for a key path that reads no
    ///   projected property.
    public func observe(
        keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<Self>) -> Void
    ) throws(StoreError) -> NotificationToken {
        let schema = try ProjectionSchema.of(type(of: self))
        var labels: [String] = []
        for keyPath in keyPaths {
            // A probe projection notes what its projected properties read. Its root is a fresh
            // unmanaged object: reading it neither traps for a deleted root nor on another thread
            // (`rootObject.observe` throws those).
            let probe = type(of: self).init(projecting: Root())
            (probe as? any RecordsProjectedReads)?.readKeyPaths = []
            _ = probe[keyPath: keyPath]
            let reads = (probe as? any RecordsProjectedReads)?.readKeyPaths ?? []
            let read = schema.properties.filter { property in reads.contains(property.projected.rootKeyPath) }
            guard !read.isEmpty else {
                throw .invalidArgument("\(keyPath) reads no projected property of \(Self.self)")
            }
            labels += read.map(\.label)
        }
        return try observe(labels: labels, on: queue, block)
    }

    private func observe(
        labels keyPaths: [String]?, on queue: DispatchQueue?, _ block: @escaping (ObjectChange<Self>) -> Void
    )
        throws(StoreError) -> NotificationToken
    {
        // The instance's own type: Self is the static type of the receiver, maybe a superclass.
        let projectionType = type(of: self)
        let (properties, paths) = try ProjectionSchema.of(projectionType).observed(keyPaths, of: projectionType)
        // On this thread the projection observed is the one delivered; on another queue, one of the
        // root object the queue's Store delivers.
        let here: Self? = queue == nil ? self : nil
        return try rootObject.observe(keyPaths: paths, on: queue) { change in
            switch change {
            case .change(let root, let changes):
                var projected: [PropertyChange] = []
                for change in changes {
                    for property in properties where property.rootProperty == change.name {
                        projected.append(
                            PropertyChange(
                                name: property.label, oldValue: property.isPassthrough ? change.oldValue : nil,
                                newValue: DynamicValue.unwrap(property.value(of: root))))
                    }
                }
                if !projected.isEmpty { block(.change(here ?? projectionType.init(projecting: root), projected)) }
            case .deleted:
                block(.deleted)
            case .error(let error):
                block(.error(error))
            }
        }
    }
}
