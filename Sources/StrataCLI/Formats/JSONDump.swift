#if CLI
    import Foundation
    @_spi(StrataTools) import Strata

    /// `dump --format json`: `{"Type": [{…}, …], …}`, streamed object by object.
    enum JSONDump {
        static func write(_ types: [DynamicObjectType], of store: DynamicStore, limit: Int) throws(StoreError) {
            Output.write("{")
            for (position, type) in types.enumerated() {
                Output.write(position == 0 ? "\n  " : ",\n  ")
                Output.write(quoted(type.name) + ": [")
                var first = true
                try store.forEachObject(ofType: type.name, limit: limit) { object in
                    Output.write(first ? "\n    {" : ",\n    {")
                    first = false
                    var fields = object.values.map { "\(quoted($0.name)): \(value($0.value))" }
                    if type.primaryKey == nil { fields.insert("\"_rowID\": \(object.primaryKey)", at: 0) }
                    Output.write(fields.joined(separator: ", "))
                    Output.write("}")
                }
                Output.write(first ? "]" : "\n  ]")
            }
            Output.write(types.isEmpty ? "}\n" : "\n}\n")
        }

        /// `query --format json`: an array of the objects found.
        static func write(_ objects: [DynamicObject], of type: DynamicObjectType) {
            Output.write("[")
            for (position, object) in objects.enumerated() {
                Output.write(position == 0 ? "\n  {" : ",\n  {")
                var fields = object.values.map { "\(quoted($0.name)): \(value($0.value))" }
                if type.primaryKey == nil { fields.insert("\"_rowID\": \(object.primaryKey)", at: 0) }
                Output.write(fields.joined(separator: ", "))
                Output.write("}")
            }
            Output.write(objects.isEmpty ? "]\n" : "\n]\n")
        }

        /// A value as JSON text.
        static func value(_ value: Any?) -> String {
            switch DynamicObject.unboxed(value) {
            case nil: return "null"
            case let bool as Bool: return bool ? "true" : "false"
            case let string as String: return quoted(string)
            case let double as Double: return double.isFinite ? "\(double)" : quoted("\(double)")
            case let float as Float: return float.isFinite ? "\(float)" : quoted("\(float)")
            case let integer as any BinaryInteger: return "\(integer)"
            case let decimal as Decimal: return decimal.isNaN ? quoted("NaN") : "\(decimal)"
            case let decimal as Decimal128: return decimal.isFinite ? "\(decimal)" : quoted("\(decimal)")
            case let id as ObjectId: return quoted(id.stringValue)
            case let mixed as AnyValue: return Self.value(mixed.unwrapped)
            case let data as Data: return quoted(data.base64EncodedString())
            case let date as Date: return quoted(date.formatted(utcTimestamp))
            case let uuid as UUID: return quoted(uuid.uuidString)
            case let link as DynamicLink: return quoted(link.primaryKey)
            case let embedded as DynamicObject:
                return "{"
                    + embedded.values.map { "\(quoted($0.name)): \(Self.value($0.value))" }.joined(separator: ", ")
                    + "}"
            case let array as [Any]: return "[" + array.map { Self.value($0) }.joined(separator: ", ") + "]"
            case let map as [String: Any]:
                let keys = map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                return "{" + keys.map { "\(quoted($0)): \(Self.value(map[$0] ?? nil))" }.joined(separator: ", ") + "}"
            case let other?: return quoted("\(other)")
            }
        }

        /// ISO 8601 with milliseconds and the zone: `2026-11-23T12:00:00.000Z` (it lacked the `Z`).
        static let utcTimestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

        /// A JSON string literal.
        static func quoted(_ string: String) -> String { JSONString.quoted(string) }
    }
#endif
