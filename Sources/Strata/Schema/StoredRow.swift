/// The class of a stored type's schema read from a file with no model class behind it
/// (`ObjectSchema(stored:)`): what a `DynamicStore`'s query plans are typed by. No instance is ever
/// made: the engine hands a `DynamicStore` rows and keys, which it reads as `DynamicObject`s.
final class StoredRow: Object {}
