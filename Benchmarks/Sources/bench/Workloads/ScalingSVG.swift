import Foundation

/// The scaling series as an SVG chart, written as plain text: one panel per phase, µs per
/// object (y) against objects (x), both logarithmic, one line per contender, and a legend.
/// A flat line is linear growth of the total time.
func scalingSVG(_ points: [ScalingPoint], sizes: [Int]) -> String {
    let (panelWidth, panelHeight, left, top, bottom) = (440.0, 300.0, 60.0, 40.0, 40.0)
    var specs: [ContenderSpec] = []
    for p in points where p.perObject(.insert) != nil && !specs.contains(where: { $0.id == p.spec.id }) { specs.append(p.spec) }
    let colors = ["#444444", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]
    let legendHeight = Double(specs.count) * 18 + 10
    let width = left + 2 * (panelWidth + left)
    let height = top + panelHeight + bottom + legendHeight
    var svg = [
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
    ]
    let logs = sizes.map { log10(Double($0)) }
    let (xMin, xMax) = (logs.min() ?? 0, logs.max() ?? 1)
    for (index, phase) in ScalingPoint.Phase.allCases.enumerated() {
        let x0 = left + Double(index) * (panelWidth + left)
        let values = points.compactMap { $0.perObject(phase) }.filter { $0 > 0 }
        let yLow = floor(log10(values.min() ?? 1))
        let yHigh = max(yLow + 1, ceil(log10(values.max() ?? 10)))
        func x(_ size: Int) -> Double {
            xMax == xMin ? x0 + panelWidth / 2 : x0 + (log10(Double(size)) - xMin) / (xMax - xMin) * panelWidth
        }
        func y(_ value: Double) -> Double { top + panelHeight - (log10(value) - yLow) / (yHigh - yLow) * panelHeight }
        let title = phase == .insert ? "insert + save" : "fetch + read"
        svg.append(text(x0 + panelWidth / 2, top - 15, "\(title): µs per object (log scale)", anchor: "middle", bold: true))
        for decade in Int(yLow)...Int(yHigh) {
            for step in [1.0, 2, 5] where Double(decade) + log10(step) <= yHigh {
                let value = step * pow(10, Double(decade))
                svg.append(line(x0, y(value), x0 + panelWidth, y(value), step == 1 ? "#cccccc" : "#eeeeee"))
                svg.append(text(x0 - 6, y(value) + 4, format(value), anchor: "end"))
            }
        }
        for size in sizes {
            svg.append(line(x(size), top, x(size), top + panelHeight, "#eeeeee"))
            svg.append(text(x(size), top + panelHeight + 16, grouped(size), anchor: "middle"))
        }
        svg.append(text(x0 + panelWidth / 2, top + panelHeight + 32, "objects (log scale)", anchor: "middle"))
        svg.append("<rect x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(panelWidth))\" height=\"\(f(panelHeight))\" fill=\"none\" stroke=\"#888888\"/>")
        for (i, spec) in specs.enumerated() {
            let series = sizes.compactMap { size in
                points.first { $0.spec.id == spec.id && $0.size == size }?.perObject(phase).map { (x(size), y($0)) }
            }
            let color = colors[i % colors.count]
            let coordinates = series.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            svg.append("<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>")
            for (px, py) in series {
                svg.append("<circle cx=\"\(f(px))\" cy=\"\(f(py))\" r=\"3\" fill=\"\(color)\"/>")
            }
        }
    }
    for (i, spec) in specs.enumerated() {
        let ly = top + panelHeight + bottom + 14 + Double(i) * 18
        svg.append(line(left, ly - 4, left + 24, ly - 4, colors[i % colors.count], width: 3))
        svg.append(text(left + 32, ly, spec.title, anchor: "start"))
    }
    svg.append("</svg>")
    return svg.joined(separator: "\n") + "\n"
}

private func format(_ value: Double) -> String {
    String(format: "%g", value)
}

private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String, width: Double = 1) -> String {
    "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(color)\" stroke-width=\"\(f(width))\"/>"
}

private func text(_ x: Double, _ y: Double, _ content: String, anchor: String, bold: Bool = false) -> String {
    let escaped = content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    return "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\"\(bold ? " font-weight=\"bold\"" : "")>\(escaped)</text>"
}

/// A coordinate with one decimal.
private func f(_ value: Double) -> String { String(format: "%.1f", value) }
