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

/// Bytes in the list format (`ListFormat`): a count, then each element's length (0xFFFFFFFF: null)
/// and bytes. What damaged-bytes tests build Maps and sets from.
func storedList(_ elements: [[UInt8]?]) -> [UInt8] {
    var bytes = withUnsafeBytes(of: UInt32(elements.count).littleEndian) { Array($0) }
    for element in elements {
        guard let element else {
            bytes += [0xFF, 0xFF, 0xFF, 0xFF]
            continue
        }
        bytes += withUnsafeBytes(of: UInt32(element.count).littleEndian) { Array($0) } + element
    }
    return bytes
}
