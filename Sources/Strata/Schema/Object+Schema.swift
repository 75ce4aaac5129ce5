extension Object {
    /// The table binding of this object's type while it has a key: `TableBinding` is the one kind of
    /// `ObjectTable`.
    var _tableBinding: TableBinding? {
        _binding.map { unsafeDowncast($0, to: TableBinding.self) }
    }
}
