import Foundation
import Strata

final class Viewed: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var first: String
    @Persisted var last: String
    @Persisted var age: Int
    @Persisted var note: String
    @Persisted var address: ViewedAddress?
    @Persisted var friends: List<Viewed>
    @Persisted var badges: MutableSet<ViewedBadge>
}

final class ViewedAddress: EmbeddedObject {
    @Persisted var city: String
    @Persisted var country: String
}

final class ViewedBadge: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var level: Int
}

/// Every kind of projected property: passthrough, renamed, transformed, through a link, mapped over a
/// List and a MutableSet.
final class ViewedCard: Projection<Viewed> {
    @Projected(\Viewed.first) var firstName
    @Projected(\Viewed.age) var age
    @Projected(\Viewed.last.localizedUppercase) var lastCaps
    @Projected(\Viewed.address?.city) var city
    @Projected(\Viewed.friends.projectTo.first) var friendNames: ProjectedCollection<String>
    @Projected(\Viewed.badges.projectTo.level) var badgeLevels: ProjectedCollection<Int>
}

/// A projection of a subclass of projection: the superclass's properties come first.
final class ViewedCardWithNote: ViewedCardBase {
    @Projected(\Viewed.note) var note
}

class ViewedCardBase: Projection<Viewed> {
    @Projected(\Viewed.first) var name
}

enum ViewedTypes {
    static let all: [Object.Type] = [Viewed.self, ViewedAddress.self, ViewedBadge.self]
}

/// Seen first through a reference of its superclass's type (ProjectionTests).
final class ViewedAgeOnly: Projection<Viewed> {
    @Projected(\Viewed.age) var age
}
