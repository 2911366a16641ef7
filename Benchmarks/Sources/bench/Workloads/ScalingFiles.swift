import Foundation

/// Writes scaling.csv and scaling.svg into `directory` (created if missing).
func writeScalingFiles(_ points: [ScalingPoint], sizes: [Int], to directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try scalingCSV(points).write(toFile: "\(directory)/scaling.csv", atomically: true, encoding: .utf8)
    try scalingSVG(points, sizes: sizes).write(toFile: "\(directory)/scaling.svg", atomically: true, encoding: .utf8)
}

/// Removes the stores a run left in its scratch directory, when the directory is kept
/// only for the scaling files.
func removeStores(in directory: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names where name.contains(".sqlite") { try? FileManager.default.removeItem(atPath: "\(directory)/\(name)") }
}
