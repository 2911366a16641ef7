import Foundation

/// The scaling series as CSV: one line per contender, phase and size.
func scalingCSV(_ points: [ScalingPoint]) -> String {
    var lines = ["contender,title,phase,objects,median_ms,min_ms,max_ms,us_per_object,x_raw"]
    for phase in ScalingPoint.Phase.allCases {
        for point in points {
            guard let stats = point.stats(phase), let perObject = point.perObject(phase) else { continue }
            let ratio = Scaling.reference(points, size: point.size, phase).map { String(format: "%.3f", stats.median / $0) } ?? ""
            lines.append([
                point.spec.id, "\"\(point.spec.title)\"", phase.rawValue, "\(point.size)",
                String(format: "%.3f", stats.median * 1e3), String(format: "%.3f", stats.min * 1e3),
                String(format: "%.3f", stats.max * 1e3), String(format: "%.4f", perObject), ratio,
            ].joined(separator: ","))
        }
    }
    return lines.joined(separator: "\n") + "\n"
}
