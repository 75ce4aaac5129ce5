import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Realm's CustomPersistable tests (RealmSwift/Tests/CustomPersistableTestObjects.swift and the
/// tests over them), re-expressed: app types stored as a value type, queried through it.
@Suite("Custom persistable types", .fixtureChecks)
struct CustomPersistableTests {
    private func money(_ text: Decimal128) -> Money { Money(persistedValue: text) }

    @Test("stored, read back and kept in optionals, Lists, Maps and sets; an undeclared value starts at the zero")
    func stored() throws {
        let fixture = Fixture([Invoice.self])
        let store = try fixture.open()
        let invoice = Invoice()
        #expect(invoice.total == money(0))
        try store.write {
            invoice.id = 1
            invoice.total = money("12.50")
            invoice.lines.append(objectsIn: [money(10), money("2.50")])
            invoice.byName["tax"] = money("1.25")
            invoice.copies.insert(EmailAddress(persistedValue: "a@b")!)
            try store.add(invoice)
        }
        let read = try #require(store.object(ofType: Invoice.self, forPrimaryKey: 1))
        #expect(read.total == money("12.5"))
        #expect(read.discount == nil)
        #expect(read.lines.map(\.amount) == [10, "2.50"])
        #expect(read.byName["tax"] == money("1.25"))
        #expect(read.contact.text == "billing@example.com")
        #expect(read.copies.map(\.text) == ["a@b"])
        try store.write { read.discount = money(1) }
        #expect(read.discount == money(1))
    }

    @Test("queries and sorting go through the stored form")
    func queries() throws {
        let fixture = Fixture([Invoice.self])
        let store = try fixture.open()
        try store.write {
            for (id, total) in [(1, "30"), (2, "5.5"), (3, "100")] as [(Int, Decimal128)] {
                let invoice = Invoice()
                invoice.id = id
                invoice.total = money(total)
                invoice.contact = EmailAddress(persistedValue: "n\(id)@example.com")!
                try store.add(invoice)
            }
        }
        let all = store.objects(Invoice.self)
        #expect(all.where { $0.total > money(10) }.map(\.id).sorted() == [1, 3])
        #expect(all.where { $0.total == money("5.50") }.map(\.id) == [2])
        #expect(all.where { $0.contact == EmailAddress(persistedValue: "n3@example.com")! }.map(\.id) == [3])
        #expect(all.sorted(by: \.total).map(\.id) == [2, 1, 3])
        #expect(all.where { $0.lines.count == 0 && $0.discount == nil }.count == 3)
    }

    @Test("a stored form the type refuses is corrupted, never a trap in decoding")
    func refusedStoredForm() {
        var encoder = _RowEncoder()
        encoder.beginRow(columns: 1)
        try? "no at sign"._strataEncodeColumn(into: &encoder)
        let refused = encoder.withRow { bytes in
            let column = try? RowView(encoded: bytes, columns: 1).column(0)
            return (try? EmailAddress._strataDecodeColumn(column, in: _DecodeContext(owner: nil, column: 0))) == nil
        }
        #expect(refused)
    }
}
