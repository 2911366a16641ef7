/// Error codes of the predicate language. Foundation raises exceptions for these; we
/// return errors in ObjectGraphErrorDomain, numbered after the API-misuse codes.
extension ErrorCode {
    /// A format string that does not parse; the message names the position and the token.
    public static let predicateSyntax = 140020
    /// A format argument that is missing or of the wrong type for its specifier.
    public static let predicateArgument = 140021
    /// A `$variable` with no value at evaluation or substitution.
    public static let predicateVariable = 140022
    /// An evaluation that cannot proceed: operands of incompatible types, division by zero,
    /// an unknown key, a to-many where a single value is needed.
    public static let predicateEvaluation = 140023
}

extension ObjectGraphError {
    static func predicateSyntax(_ message: String, position: Int, token: String) -> ObjectGraphError {
        var e = misuse(ErrorCode.predicateSyntax, "\(message) at position \(position) (near '\(token)')")
        e.userInfo = [("position", String(position)), ("token", token)]
        return e
    }

    static func predicateArgument(_ message: String) -> ObjectGraphError {
        misuse(ErrorCode.predicateArgument, message)
    }

    static func predicateVariable(_ name: String) -> ObjectGraphError {
        var e = misuse(ErrorCode.predicateVariable, "no value for the variable $\(name)")
        e.userInfo = [("variable", name)]
        return e
    }

    static func predicateEvaluation(_ message: String, keyPath: String? = nil) -> ObjectGraphError {
        var e = misuse(ErrorCode.predicateEvaluation, message)
        if let keyPath { e.userInfo = [(ErrorUserInfoKey.validationKey, keyPath)] }
        return e
    }
}
