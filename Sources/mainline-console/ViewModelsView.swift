import MainlineInspectorSchema

/// The view models and their lifecycle states, then the coordinators and containers with their stacks.
enum ViewModelsView {
    /// At most this many view models are listed one by one; the counts by state cover all of them.
    static let listed = 200

    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        var lines: [String] = []
        if snapshot.viewModels.isEmpty {
            lines.append("no view models (made since the inspector started)")
        } else {
            var byState: [String: Int] = [:]
            for viewModel in snapshot.viewModels { byState[viewModel.state ?? "?", default: 0] += 1 }
            let counts = byState.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("view models: \(snapshot.viewModels.count) (\(counts))")
            lines.append(
                contentsOf: Formatting.table(
                    ["TYPE", "STATE", "ID"],
                    snapshot.viewModels.prefix(listed).map {
                        [$0.type ?? "?", $0.state ?? "-", Formatting.integer($0.id)]
                    }
                )
            )
            if snapshot.viewModels.count > listed { lines.append("… and \(snapshot.viewModels.count - listed) more") }
        }
        lines.append("")
        if snapshot.coordinators.isEmpty {
            lines.append("no coordinators (made since the inspector started)")
        } else {
            lines.append("coordinators: \(snapshot.coordinators.count)")
            lines.append(
                contentsOf: Formatting.table(
                    ["TYPE", "STATE", "ID", "STACK"],
                    snapshot.coordinators.map {
                        [$0.type ?? "?", $0.state ?? "-", Formatting.integer($0.id), $0.stack.joined(separator: " > ")]
                    }
                )
            )
        }
        return lines
    }
}
