/// The order a container builds its features in: every provider of a service before each feature that needs
/// it (see ``PageFeature``), otherwise the order they were listed in.
struct FeatureOrder {
    let features: [any PageFeature]

    init(_ listed: [any PageFeature]) throws(PageFeatureError) {
        var providers: [PageServiceID: [Int]] = [:]
        for (index, feature) in listed.enumerated() {
            for service in Set(feature.provides) { providers[service, default: []].append(index) }
        }
        for (service, indices) in providers where indices.count > 1 && !service.allowsSeveralProviders {
            throw .providedTwice(service: service.description, features: indices.map { Self.name(of: listed[$0]) })
        }
        // before[i]: the features that must be built before feature i.
        var before = listed.map { feature in
            Set(feature.needs.flatMap { providers[$0] ?? [] })
        }
        for index in before.indices { before[index].remove(index) }
        var built: [Int] = []
        var done = Set<Int>()
        while built.count < listed.count {
            // The first listed feature whose providers are all built: listing order only breaks ties.
            guard let next = listed.indices.first(where: { !done.contains($0) && before[$0].isSubset(of: done) })
            else {
                let stuck = listed.indices.filter { !done.contains($0) }
                throw .cycle(features: stuck.map { Self.name(of: listed[$0]) })
            }
            built.append(next)
            done.insert(next)
        }
        features = built.map { listed[$0] }
    }

    static func name(of feature: any PageFeature) -> String { String(describing: type(of: feature)) }
}
