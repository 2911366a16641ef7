import FoundationEssentials
import ObjectGraph

// og_store_* functions that go with model edit: this handle family's part of that concern.

@_cdecl("og_store_version_hash_count")
public func og_store_version_hash_count(_ s: OpaquePointer?) -> Int { (try? storeHashes(s))?.count ?? 0 }

@_cdecl("og_store_version_hash_at")
public func og_store_version_hash_at(_ s: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut)
    -> UnsafeMutablePointer<CChar>?
{
    text(err) { () throws(ObjectGraphError) in
        let hashes = try storeHashes(s)
        let name = try item(hashes.keys.sorted(), index, "entity")
        let out = try required(out, "out")
        let bytes = hashes[name]?.dataValue ?? []
        for i in 0..<32 { out[i] = i < bytes.count ? bytes[i] : 0 }
        return name
    }
}
