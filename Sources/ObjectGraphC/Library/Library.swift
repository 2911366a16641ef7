import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) private let versionString: UnsafeMutablePointer<CChar> = strdup(ObjectGraphVersion.string)!

@_cdecl("og_version")
public func og_version() -> UnsafePointer<CChar> {
    UnsafePointer(versionString)
}

@_cdecl("og_free")
public func og_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
