public let docContextLoaded = true
