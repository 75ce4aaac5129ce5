import Foundation
import Strata
import StrataTestModels

/// Models of the creation tests: every kind of property, links with and without primary keys,
/// embedded objects.
final class MadeTag: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var uses: Int
    @Persisted var note: String = "tag"
}

final class MadeSpot: EmbeddedObject {
    @Persisted var x: Int
    @Persisted var label: String
    @Persisted var inner: MadeSpot?
}

final class MadeKinds: Object {
    @Persisted var flag: Bool = true
    @Persisted var count: Int = 7
    @Persisted var small: Int8
    @Persisted var medium: Int32
    @Persisted var unsigned: UInt16?
    @Persisted var ratio: Float
    @Persisted var amount: Double
    @Persisted var title: String = "untitled"
    @Persisted var subtitle: String?
    @Persisted var bytes: Data
    @Persisted var when: Date
    @Persisted var uuid: UUID?
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId?
    @Persisted var mood: Mood = .calm
    @Persisted var level: Level?
    @Persisted var mixed: AnyValue
    @Persisted var words: List<String>
    @Persisted var maybeNumbers: List<Int?>
    @Persisted var numberSet: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
    @Persisted var tag: MadeTag?
    @Persisted var tags: List<MadeTag>
    @Persisted var tagSet: MutableSet<MadeTag>
    @Persisted var tagMap: Map<String, MadeTag?>
    @Persisted var spot: MadeSpot?
    @Persisted var spots: List<MadeSpot>
}

final class MadeOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int = 18
    @Persisted(unique: true) var email: String?
    @Persisted var tag: MadeTag?
    @Persisted var tags: List<MadeTag>
    @Persisted var spot: MadeSpot?
}

enum MadeTypes {
    static let all: [Object.Type] = [MadeTag.self, MadeSpot.self, MadeKinds.self, MadeOwner.self]
}
