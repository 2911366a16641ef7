/// An error in Core Data's shape: a domain, a code (Core Data's numbers in
/// `NSCocoaErrorDomain`, SQLite's result codes in `NSSQLiteErrorDomain`, API misuse in
/// `ObjectGraphErrorDomain`), a message that names what failed, user-info entries and
/// detailed errors (`NSDetailedErrorsKey`).
public struct ObjectGraphError: Error, Sendable, CustomStringConvertible {
    public static let cocoaDomain = "NSCocoaErrorDomain"
    public static let sqliteDomain = "NSSQLiteErrorDomain"
    public static let objectGraphDomain = "ObjectGraphErrorDomain"

    public var domain: String
    public var code: Int
    public var message: String
    /// Core Data's user-info keys (`NSValidationErrorKey`, …) with their values as text.
    public var userInfo: [(key: String, value: String)]
    /// The individual failures of an error that collects several, or the underlying error.
    public var details: [ObjectGraphError]
    /// What a later layer attaches: the merge conflicts of a failed save (`conflicts`).
    public var attachments: [any ErrorAttachment] = []

    public init(
        domain: String = ObjectGraphError.cocoaDomain, code: Int, message: String,
        userInfo: [(key: String, value: String)] = [], details: [ObjectGraphError] = []
    ) {
        self.domain = domain
        self.code = code
        self.message = message
        self.userInfo = userInfo
        self.details = details
    }

    public func userInfoValue(forKey key: String) -> String? {
        userInfo.first(where: { $0.key == key })?.value
    }

    public var description: String { "\(domain) \(code): \(message)" }
}

/// A record an error carries for the caller, made by a later layer (a merge conflict).
public protocol ErrorAttachment: AnyObject, Sendable {}

/// Error codes. Core Data's keep their numbers; codes for misuse of the API start at 140001.
public enum ErrorCode {
    public static let validation = 1550
    public static let validationMultiple = 1560
    public static let validationMissingMandatoryProperty = 1570
    public static let validationRelationshipLacksMinimumCount = 1580
    public static let validationRelationshipExceedsMaximumCount = 1590
    public static let validationRelationshipDeniedDelete = 1600
    public static let validationNumberTooLarge = 1610
    public static let validationNumberTooSmall = 1620
    public static let validationDateTooLate = 1630
    public static let validationDateTooSoon = 1640
    public static let validationInvalidDate = 1650
    public static let validationStringTooLong = 1660
    public static let validationStringTooShort = 1670
    public static let validationStringPatternMatching = 1680
    public static let contextLocking = 132000
    public static let coordinatorLocking = 132010
    public static let referentialIntegrity = 133000
    public static let externalRelationship = 133010
    public static let merge = 133020
    /// `NSManagedObjectConstraintMergeError`: a save broke a uniqueness constraint under
    /// the error merge policy (or in a way no policy resolves); nothing was written.
    public static let constraintMerge = 133021
    public static let storeInvalidType = 134000
    public static let storeTypeMismatch = 134010
    public static let storeIncompatibleSchema = 134020
    public static let storeSave = 134030
    public static let storeIncompleteSave = 134040
    /// `NSPersistentStoreSaveConflictsError`: an atomic store's file was saved by another
    /// writer since this store read it; nothing was written.
    public static let storeSaveConflicts = 134050
    public static let coreData = 134060
    public static let storeOperation = 134070
    public static let storeOpen = 134080
    public static let storeTimeout = 134090
    /// `NSPersistentStoreUnsupportedRequestTypeError`: the store cannot run the request (a
    /// batch request on a store other than SQLite).
    public static let storeUnsupportedRequestType = 134091
    public static let storeIncompatibleVersionHash = 134100
    /// `NSPersistentHistoryTokenExpiredError`: the history after a token was purged.
    public static let historyTokenExpired = 134301
    public static let migration = 134110
    public static let migrationConstraintViolation = 134111
    public static let migrationCancelled = 134120
    public static let migrationMissingSourceModel = 134130
    public static let migrationMissingMappingModel = 134140
    public static let migrationManagerSourceStore = 134150
    public static let migrationManagerDestinationStore = 134160
    public static let entityMigrationPolicy = 134170
    public static let sqlite = 134180
    public static let inferredMappingModel = 134190
    public static let invalidHandle = 140001
    public static let invalidArgument = 140002
    public static let invalidUTF8 = 140003
    public static let unknownEntity = 140004
    public static let unknownKey = 140005
    public static let typeMismatch = 140006
    public static let wrongThread = 140007
    public static let modelImmutable = 140008
    public static let invalidModel = 140009
    public static let objectInaccessible = 140010
}

/// Core Data's user-info keys.
public enum ErrorUserInfoKey {
    public static let validationObject = "NSValidationErrorObject"
    public static let validationKey = "NSValidationErrorKey"
    public static let validationValue = "NSValidationErrorValue"
    public static let validationPredicate = "NSValidationErrorPredicate"
    public static let entity = "entity"
    public static let property = "property"
    public static let filePath = "NSFilePath"
    /// The name a model gave that is not a valid name (error 140009).
    public static let invalidName = "invalidName"
}

extension ObjectGraphError {
    static func misuse(_ code: Int, _ message: String) -> ObjectGraphError {
        ObjectGraphError(domain: objectGraphDomain, code: code, message: message)
    }

    public static func invalidArgument(_ message: String) -> ObjectGraphError {
        misuse(ErrorCode.invalidArgument, message)
    }

    public static func unknownEntity(_ name: String) -> ObjectGraphError {
        var e = misuse(ErrorCode.unknownEntity, "the model has no entity named '\(name)'")
        e.userInfo = [(ErrorUserInfoKey.entity, name)]
        return e
    }

    public static func unknownKey(_ key: String, entity: String) -> ObjectGraphError {
        var e = misuse(ErrorCode.unknownKey, "entity '\(entity)' has no property named '\(key)'")
        e.userInfo = [(ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.validationKey, key)]
        return e
    }

    public static func typeMismatch(key: String, entity: String, expected: AttributeType, got: AttributeValue)
        -> ObjectGraphError
    {
        var e = misuse(
            ErrorCode.typeMismatch,
            "unacceptable type of value for '\(entity).\(key)': expected \(expected.name), got \(got.kindName)")
        e.userInfo = [
            (ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.validationKey, key),
            (ErrorUserInfoKey.validationValue, got.description),
        ]
        return e
    }

    public static func wrongKind(key: String, entity: String, expected: String) -> ObjectGraphError {
        var e = misuse(ErrorCode.typeMismatch, "'\(entity).\(key)' is not \(expected)")
        e.userInfo = [(ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.validationKey, key)]
        return e
    }

    /// An integer outside its type's range: 1610 above it, 1620 below it.
    static func numberOutOfRange(key: String, entity: String, value: AttributeValue, type: AttributeType, tooLarge: Bool) -> ObjectGraphError {
        let range = type.integerRange!
        return ObjectGraphError(
            code: tooLarge ? ErrorCode.validationNumberTooLarge : ErrorCode.validationNumberTooSmall,
            message: tooLarge
                ? "\(value) is too large for '\(entity).\(key)' (\(type.name), at most \(range.upperBound))"
                : "\(value) is too small for '\(entity).\(key)' (\(type.name), at least \(range.lowerBound))",
            userInfo: [(ErrorUserInfoKey.validationKey, key), (ErrorUserInfoKey.validationValue, value.description)])
    }

    /// A double no decimal can hold: an infinity is too large (1610) or too small (1620),
    /// NaN and magnitudes beyond a decimal's range are 1610 as well.
    static func notADecimal(key: String, entity: String, value: Double) -> ObjectGraphError {
        ObjectGraphError(
            code: value < 0 && value.isInfinite ? ErrorCode.validationNumberTooSmall : ErrorCode.validationNumberTooLarge,
            message: "\(value) cannot be stored in '\(entity).\(key)' (Decimal): a decimal holds only finite numbers within its range",
            userInfo: [(ErrorUserInfoKey.validationKey, key), (ErrorUserInfoKey.validationValue, String(value))])
    }


    public static func modelImmutable(_ what: String) -> ObjectGraphError {
        misuse(ErrorCode.modelImmutable, "cannot change \(what): the model is in use by a coordinator and can no longer be edited")
    }

    public static func invalidModel(_ message: String) -> ObjectGraphError {
        misuse(ErrorCode.invalidModel, message)
    }

    public static func wrongThread(_ what: String) -> ObjectGraphError {
        misuse(ErrorCode.wrongThread, "\(what) was used from a thread that does not own its context")
    }

    public static func objectInaccessible(_ message: String) -> ObjectGraphError {
        misuse(ErrorCode.objectInaccessible, message)
    }
}
