import Foundation
import ObjectGraph

/// Memory per live fetched object from Swift, measured as `c/og_memory.c` measures it from
/// C: the resident set before and after fetching N Item objects (ten Int64 attributes) and
/// reading one value of each, so every fault has fired. Swift holds no handles, so this is
/// the row, the object, its registry entry and its place in the result.
enum MemoryBench {
    static func run(objects: Int, dir: String) throws -> String {
        let path = dir + "/og-swift-memory.sqlite"
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false))
        let slots = try Workload.attributeNames.map { try stack.slot("Item", $0) }
        let context = stack.context
        let beforeImport = residentKiB()
        var done = 0
        while done < objects {
            for i in done..<min(objects, done + 1_000) {
                let item = try context.insertObject(entityName: "Item")
                for (k, slot) in slots.enumerated() { try item.setValue(.integer(Int64(i * 10 + k)), atSlot: slot) }
            }
            try context.save()
            try context.reset()
            done += 1_000
        }
        let afterImport = residentKiB()
        let before = residentKiB()
        var result: [ManagedObject]? = try context.fetch(FetchRequest(entityName: "Item"))
        var sum: Int64 = 0
        for object in result! {
            guard case .integer(let v) = try object.value(atSlot: slots[0]) else { throw BenchError("a0 is not an integer") }
            sum &+= v
        }
        let live = residentKiB()
        let count = result!.count
        result = nil
        try context.reset()
        let released = residentKiB()
        return """
            objects \(count) (sum \(sum))
            import of \(objects) in saves of 1000 with reset: resident set \(mb(afterImport - beforeImport)) MB
            live fetched objects: \(Int((Double(live - before) * 1024 / Double(count)).rounded())) bytes each (values included: ten Int64 attributes)
            after release and reset: \(mb(released - before)) MB above before the fetch
            """
    }

    private static func mb(_ kib: Int) -> String { String(format: "%+.1f", Double(kib) / 1024) }

    /// `VmRSS` of /proc/self/status, in KiB.
    private static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? -1
    }
}
