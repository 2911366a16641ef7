/// The library's version; the C header's OG_VERSION_* must agree (a C test checks).
public enum ObjectGraphVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    public static var string: String { "\(major).\(minor).\(patch)" }
}
