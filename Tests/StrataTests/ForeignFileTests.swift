import CLMDB
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Files Strata did not create are refused before LMDB opens them: nothing is written to them, not
/// even a reader slot in their lock file.
@Suite(.fixtureChecks, .offThePool) struct ForeignFileTests {
    /// Makes an LMDB file as another program would: named tables (or only the unnamed one) with data.
    static func makePlainLMDBFile(at path: String, tables: [String]) throws {
        let env = try LMDB.createEnvironment()
        defer { LMDB.closeEnvironment(env) }
        try LMDB.setMapSize(env, 1 << 24)
        try LMDB.setMaxTables(env, 8)
        try LMDB.openEnvironment(env, path: path, flags: UInt32(MDB_NOSUBDIR), mode: 0o600)
        let txn = try LMDB.beginTransaction(env, flags: 0)
        for name in tables.isEmpty ? [""] : tables {
            var dbi: MDB_dbi = 0
            if name.isEmpty {
                #expect(mdb_dbi_open(txn, nil, 0, &dbi) == 0)  // the unnamed table
            } else {
                dbi = try LMDB.openTable(txn, name: name, flags: UInt32(MDB_CREATE))
            }
            for index in 0..<100 {
                _ = try Array("key \(index)".utf8).withBytes { (key) throws(LMDBError) in
                    try Array("the other program's value \(index)".utf8).withBytes { (value) throws(LMDBError) in
                        try LMDB.put(txn, dbi, key: key, value: value, flags: 0)
                    }
                }
            }
        }
        try LMDB.commit(txn)
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    @Test(arguments: [["users", "sessions"], [], ["strata"]])
    func aPlainLMDBFileIsRefusedAndLeftAsItIs(tables: [String]) throws {
        let fixture = Fixture([Person.self])
        try Self.makePlainLMDBFile(at: fixture.path, tables: tables)
        let lock = fixture.path + "-lock"
        let bytes = fixture.fileBytes()
        let lockBytes = try Data(contentsOf: URL(fileURLWithPath: lock))
        let lockDate = Self.modificationDate(lock)
        #expect {
            try fixture.open()
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("is not a Strata file") && reason.contains("left as it is")
        }
        #expect { try DynamicStore(path: fixture.path) } throws: { isCase($0, .corrupted("")) }
        var readOnly = fixture.configuration
        readOnly.readOnly = true
        #expect { try Store(configuration: readOnly) } throws: { isCase($0, .corrupted("")) }
        #expect(fixture.fileBytes() == bytes)
        #expect(try Data(contentsOf: URL(fileURLWithPath: lock)) == lockBytes)
        #expect(Self.modificationDate(lock) == lockDate)
        #expect(fixture.isClosed)

        // Without its lock file, none is created either.
        try FileManager.default.removeItem(atPath: lock)
        #expect { try fixture.open() } throws: { isCase($0, .corrupted("")) }
        #expect(!FileManager.default.fileExists(atPath: lock))
    }

    @Test func aNewStoreCarriesItsFormatRecordFromBirth() throws {
        let fixture = Fixture([Person.self])
        do {
            _ = try fixture.open()
        }
        // Reopening sees Strata's meta table; an old-style empty file would have been refused.
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        #expect(try DynamicStore(path: fixture.path).count(ofType: "Person") == 1)
    }
}
