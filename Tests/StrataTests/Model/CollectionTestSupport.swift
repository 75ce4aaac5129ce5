import Strata
import StrataTestSupport

/// Runs `body` on an unmanaged contact (store nil), then on a managed one inside a write: Realm's
/// Standalone and NewlyAdded variants of its collection tests.
func onUnmanagedAndManagedContact(_ body: (Contact, Store?) throws -> Void) throws {
    try body(Contact(name: "unmanaged"), nil)
    let fixture = Fixture([Contact.self])
    let store = try fixture.open()
    try store.write {
        let contact = Contact(name: "managed")
        try store.add(contact)
        try body(contact, store)
    }
}
