#if Sync
    import Foundation
    @_spi(StrataSync) @_spi(StrataTools) import Strata

    /// The SQL StrataSync keeps on its server, all in the schema `strata`:
    ///
    /// - `strata.sync_meta(key, value)`: the protocol version.
    /// - `strata.sequence`: one row, the last sequence number given out. A push locks it until it
    ///   commits, so the changes become visible in the order of their numbers.
    /// - `strata.clients(client_id, pushed_through, last_push, role, pulled_through, last_seen)`: per
    ///   client, the last of its outbox places the server accepted (a retried batch is recognised and
    ///   skipped), and how far and when it last pulled (what `strata.trim_history` keeps for).
    /// - `strata.changes(first_seq, last_seq, client_id, client_seq, type_names, object_keys, kinds,
    ///   payloads, committed_at)`: every accepted change, in order (what clients pull), one row per push
    ///   with one array element per change: change `first_seq + i - 1` is element `i` of each array.
    ///   One row per change cost a table row and an index entry each, more than the typed tables' rows.
    /// - `strata.change_log(seq, client_id, type_name, object_key, kind, payload, committed_at)`: a view
    ///   of `strata.changes` with one row per change, for other programs.
    /// - `strata.types(name, fingerprint, columns)`: each synced type and its columns.
    /// - `strata."<Type>"`: the current objects of each type, one typed column per property (what other
    ///   programs read), and `_strata_image`: the object's properties as a change payload holds them
    ///   (what a new client starts from, `StoreSync.bootstrap`).
    enum ServerSchema {
        static let protocolVersion = "5"  // 3: Map patches; 4: audiences, roles, row-level security; 5: `moved` notices
        static let channel = "strata_changes"
        /// Taken while the tables are created, so that two clients starting together do not collide.
        static let creationLock: Int64 = 0x5354_5241_5441  // "STRATA"

        /// What holds the protocol version, made before it is compared.
        static let meta: [String] = [
            "CREATE SCHEMA IF NOT EXISTS strata",
            "CREATE TABLE IF NOT EXISTS strata.sync_meta (key text PRIMARY KEY, value text NOT NULL)",
        ]

        /// The tables of the protocol, made once its version is known to match.
        static let tables: [String] =
            [
                """
                CREATE TABLE IF NOT EXISTS strata.sequence (
                    id int PRIMARY KEY CHECK (id = 1), last_seq bigint NOT NULL)
                """,
                "INSERT INTO strata.sequence VALUES (1, 0) ON CONFLICT DO NOTHING",
                """
                CREATE TABLE IF NOT EXISTS strata.clients (
                    client_id uuid PRIMARY KEY, pushed_through bigint NOT NULL DEFAULT 0,
                    last_push timestamptz NOT NULL DEFAULT now(), role name NOT NULL DEFAULT current_user,
                    pulled_through bigint NOT NULL DEFAULT 0, last_seen timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE IF NOT EXISTS strata.members (
                    member name NOT NULL, team text NOT NULL, PRIMARY KEY (member, team))
                """,
                """
                CREATE TABLE IF NOT EXISTS strata.access_rules (
                    type_name text PRIMARY KEY, key_column text NOT NULL, key_type text NOT NULL,
                    key_expression text NOT NULL, owner_column text NOT NULL, team_column text)
                """,
                // Made only when missing: ALTER TABLE would wait for every push and pull under way.
                """
                DO $$ BEGIN
                    IF to_regclass('strata.changes') IS NULL THEN
                        CREATE TABLE strata.changes (
                            first_seq bigint PRIMARY KEY, last_seq bigint NOT NULL, client_id uuid NOT NULL,
                            client_seq bigint NOT NULL, type_names text[] NOT NULL, object_keys bytea[] NOT NULL,
                            kinds text[] NOT NULL, payloads bytea[] NOT NULL,
                            committed_at timestamptz NOT NULL DEFAULT now(), audience_owner text, audience_team text);
                        -- lz4 where the server has it (PostgreSQL 14 and later, built with it): a push's
                        -- arrays shrink 3-4 times for a fraction of the time pglz takes.
                        BEGIN
                            EXECUTE 'ALTER TABLE strata.changes ALTER COLUMN type_names SET COMPRESSION lz4, '
                                'ALTER COLUMN object_keys SET COMPRESSION lz4, ALTER COLUMN kinds SET COMPRESSION lz4, '
                                'ALTER COLUMN payloads SET COMPRESSION lz4';
                        EXCEPTION WHEN OTHERS THEN NULL;
                        END;
                        CREATE VIEW strata.change_log WITH (security_invoker = true) AS
                            SELECT c.first_seq + u.i - 1 AS seq, c.client_id, u.type_name, u.object_key, u.kind,
                                u.payload, c.committed_at
                            FROM strata.changes AS c,
                                unnest(c.type_names, c.object_keys, c.kinds, c.payloads)
                                    WITH ORDINALITY AS u(type_name, object_key, kind, payload, i);
                    END IF;
                END $$
                """,
                """
                CREATE TABLE IF NOT EXISTS strata.types (
                    name text PRIMARY KEY, fingerprint text NOT NULL, columns jsonb NOT NULL)
                """,
            ] + ServerAccess.statements + ServerImages.statements

        /// A type's columns as one line (compared between clients and server).
        static func fingerprint(_ type: SyncTypeSchema) -> String {
            "key=\(type.primaryKey);" + type.properties.map { "\($0.name):\($0.type)" }.joined(separator: ",")
        }

        static func quoted(_ identifier: String) -> String {
            "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }

        static func table(_ type: String) -> String { "strata." + quoted(type) }

        /// The PostgreSQL type of a property: links are the primary key of their target, lists jsonb.
        static func sqlType(_ type: SyncType, keyTypes: [String: SyncType]) -> String {
            switch type {
            case .bool: "boolean"
            case .integer: "bigint"
            case .unsigned: "numeric(20)"
            case .double: "double precision"
            case .string: "text"
            case .data: "bytea"
            case .date: "timestamptz"
            case .uuid: "uuid"
            case .decimal, .decimal128: "numeric"
            case .objectId: "text"
            case .optional(let wrapped): sqlType(wrapped, keyTypes: keyTypes)
            case .link(let target): keyTypes[target].map { sqlType($0, keyTypes: keyTypes) } ?? "text"
            case .list, .map, .mixed, .embedded: "jsonb"
            case .set(let element): sqlType(element, keyTypes: keyTypes) + "[]"
            }
        }

        /// SQL that reads a primary key of `type` from the stored key bytes (`$key`) a change names:
        /// what Strata's row keys hold (RowKey: an Int with its sign bit flipped, big-endian; a String
        /// after a tag byte; a UUID's 16 bytes).
        static func keyExpression(_ type: SyncType) -> String {
            switch type {
            case .integer: "(('x' || encode($key, 'hex'))::bit(64)::bigint # (-9223372036854775807 - 1))"
            case .string: "convert_from(substring($key FROM 2), 'UTF8')"
            default: "encode($key, 'hex')::uuid"
            }
        }

        static func isNullable(_ type: SyncType) -> Bool {
            switch type {
            case .optional, .link, .embedded: true
            default: false
            }
        }

        /// `CREATE TABLE` for a type's current objects.
        static func createStateTable(_ type: SyncTypeSchema, keyTypes: [String: SyncType]) -> String {
            let columns = type.properties.map { property in
                var column = quoted(property.name) + " " + sqlType(property.type, keyTypes: keyTypes)
                if property.name == type.primaryKey {
                    column += " PRIMARY KEY"
                } else if !isNullable(property.type) {
                    column += " NOT NULL"
                }
                return column
            }
            return
                "CREATE TABLE IF NOT EXISTS \(table(type.name)) (\(columns.joined(separator: ", ")), \(imageColumn) bytea)"
        }

        /// The column of a typed table that holds each object's image.
        static var imageColumn: String { quoted("_strata_image") }
    }

    /// A MutableSet as a PostgreSQL array literal (`{"a","b",NULL}`), cast to the element's array type.
    enum PostgresArrayText {
        static func literal(_ elements: [SyncValue]) -> String {
            var text = "{"
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                guard let item = self.text(element) else {
                    text += "NULL"
                    continue
                }
                text += "\""
                for character in item.unicodeScalars {
                    if character == "\"" || character == "\\" { text += "\\" }
                    text.unicodeScalars.append(character)
                }
                text += "\""
            }
            return text + "}"
        }

        /// An element as PostgreSQL's text input for its type (nil: NULL).
        private static func text(_ value: SyncValue) -> String? {
            switch value {
            case .null: nil
            case .bool(let bool): bool ? "t" : "f"
            case .integer(let integer): String(integer)
            case .unsigned(let integer): String(integer)
            case .double(let double):
                double.isNaN ? "NaN" : double.isInfinite ? (double > 0 ? "Infinity" : "-Infinity") : "\(double)"
            case .string(let string): string
            case .data(let data): "\\x" + JSONText.hex(data)
            case .date(let date): JSONText.isoDate(date)
            case .uuid(let uuid): uuid.uuidString.lowercased()
            case .decimal(let decimal): "\(decimal)"
            case .decimal128(let decimal): JSONText.numericText(decimal)
            case .objectId(let id): id.stringValue
            case .list, .set, .map, .mapPatch:
                {
                    var json = ""
                    JSONText.append(value, to: &json)
                    return json
                }()
            }
        }
    }

    /// Values as JSON text: list properties (`jsonb` columns) and `strata.types.columns`.
    enum JSONText {
        static func append(_ value: SyncValue, to text: inout String, nested: Bool = false) {
            switch value {
            case .null: text += "null"
            case .bool(let bool): text += bool ? "true" : "false"
            case .integer(let integer): text += String(integer)
            case .unsigned(let integer): text += String(integer)
            case .double(let double):
                if double.isFinite {
                    text += "\(double)"
                } else {
                    appendString(double.isNaN ? "NaN" : (double > 0 ? "Infinity" : "-Infinity"), to: &text)
                }
            case .string(let string): appendString(string, to: &text)
            case .data(let data):
                // bytea's hex input: what other programs then read as bytes
                appendString(nested ? data.base64EncodedString() : "\\x" + hex(data), to: &text)
            case .date(let date): appendString(isoDate(date), to: &text)
            case .uuid(let uuid): appendString(uuid.uuidString.lowercased(), to: &text)
            case .decimal(let decimal): appendString("\(decimal)", to: &text)
            case .decimal128(let decimal): appendString(numericText(decimal), to: &text)
            case .objectId(let id): appendString(id.stringValue, to: &text)
            case .mapPatch(let set, _):
                append(.map(set), to: &text, nested: nested)  // the keys set; removals travel apart
            case .map(let entries):
                text += "{"
                for (index, key) in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated()
                {
                    if index > 0 { text += "," }
                    appendString(key, to: &text)
                    text += ":"
                    append(entries[key] ?? .null, to: &text, nested: true)
                }
                text += "}"
            case .list(let values), .set(let values):
                text += "["
                for (index, element) in values.enumerated() {
                    if index > 0 { text += "," }
                    append(element, to: &text, nested: true)
                }
                text += "]"
            }
        }

        /// A Decimal128 as PostgreSQL's `numeric` reads it (`NaN`, `Infinity`, `-Infinity`, digits).
        static func numericText(_ decimal: Decimal128) -> String {
            decimal.isNaN ? "NaN" : decimal.description
        }

        static func appendString(_ string: String, to text: inout String) {
            JSONString.append(string, to: &text)
        }

        private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

        static func hex(_ data: Data) -> String {
            var text = String.UnicodeScalarView()
            for byte in data {
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0xF)])
            }
            return String(text)
        }

        /// RFC 3339 in UTC with microseconds (PostgreSQL's precision).
        static func isoDate(_ date: Date) -> String {
            var seconds = date.timeIntervalSince1970.rounded(.down)
            var micros = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded())
            if micros == 1_000_000 {
                seconds += 1
                micros = 0
            }
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            func padded(_ value: Int, _ width: Int) -> String {
                let digits = String(value)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            return
                "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
                + "T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
                + ".\(padded(micros, 6))Z"
        }
    }
#endif
