/// An object that lives inside its owner (Realm's `EmbeddedObject`): no primary key, owned by exactly
/// one object through a link, a List, a MutableSet or a Map, and deleted with it.
///
/// ```swift
/// final class Address: EmbeddedObject {
///     @Persisted var street: String
///     @Persisted var city: String
/// }
/// final class Contact: Object {
///     @Persisted(primaryKey: true) var id = ObjectId.generate()
///     @Persisted var address: Address?
///     @Persisted var previous: List<Address>
/// }
/// try store.write {
///     contact.address = Address()          // stored by assignment
///     contact.address?.city = "Oslo"
///     contact.address = Address()          // the Oslo address is deleted
/// }
/// store.objects(Contact.self).where { $0.address.city == "Oslo" }
/// ```
/// An embedded object is stored by assigning it to its owner's property (or adding an owner that
/// holds it); `store.add` refuses one on its own (`.invalidArgument`). Replacing it, removing it from
/// its List or Map, or deleting its owner deletes it. It cannot be given a second owner.
///
/// - Warning: Assigning a managed embedded object that has an owner to another property traps (a
///   setter cannot throw); assign a new, unmanaged one.
open class EmbeddedObject: Object {}
