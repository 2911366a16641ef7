import FoundationEssentials

/// An attribute's default value and bounds as Xcode keeps them: the text typed in the
/// inspector (`defaultValueString`, `minValueString`, `maxValueString` in `contents`;
/// `XD_PAttK_defaultValueAsString`, `…minValueString`, `…maxValueString` in Xcode 3's
/// `elements`). Both model readers turn that text into values here, so an attribute reads
/// the same from either format: as Core Data's model compiler reads it (XcodeValueText),
/// with a warning whenever the text was not in the type's own spelling.
///
/// Warnings are collected, not printed; each names the attribute through the location
/// the caller passes, and the caller decides how they reach `loadWarnings`.
struct XcodeAttributeText {
    var warnings: [String] = []

    /// Sets the default from `text` (nil: none) for any type but Date, whose text default
    /// Core Data ignores: `what` is the field's name in the file, for messages.
    mutating func setDefault(_ text: String?, _ what: String, on a: AttributeDescription, at: ModelLocation) throws(ObjectGraphError) {
        guard let text else { return }
        if a.attributeType == .date {
            ignored(text, what, a.attributeType, at)
        } else if let v = value(text, what, a.attributeType, at) {
            try a.setDefaultValue(v)
        }
    }

    /// Sets the bounds from `min` and `max` (nil: unbounded): value bounds for numbers,
    /// length bounds for strings and binary data; text bounds of a Date are ignored with a
    /// warning. `names` are the fields' names in the file, for messages.
    mutating func setBounds(min: String?, max: String?, names: (min: String, max: String), on a: AttributeDescription,
                            at: ModelLocation) throws(ObjectGraphError) {
        let type = a.attributeType
        if type == .date {  // dates have bounds in seconds, which no text field holds
            if let min { ignored(min, names.min, type, at) }
            if let max { ignored(max, names.max, type, at) }
        } else if type == .string || type == .binaryData {
            try a.setLengthBounds(min: min.map { length($0, names.min, at) }, max: max.map { length($0, names.max, at) })
        } else if min != nil || max != nil {
            let lo = min.flatMap { value($0, names.min, type, at) } ?? .null
            let hi = max.flatMap { value($0, names.max, type, at) } ?? .null
            try a.setValueBounds(min: lo, max: hi)
        }
    }

    /// A default or bound read as Core Data's compiler reads it, with a warning when the
    /// text was not in the type's own spelling; nil for no value.
    mutating func value(_ s: String, _ what: String, _ type: AttributeType, _ at: ModelLocation) -> AttributeValue? {
        guard let reading = XcodeValueText.value(s, type: type) else {
            ignored(s, what, type, at)
            return nil
        }
        if !reading.exact { warnings.append("\(at.prefix)\(what)=\"\(s)\" is not a \(XcodeNames.name(of: type)) value; read as \(reading.value), as Core Data reads it") }
        return reading.value
    }

    mutating func ignored(_ s: String, _ what: String, _ type: AttributeType, _ at: ModelLocation) {
        warnings.append("\(at.prefix)\(what)=\"\(s)\" gives a \(XcodeNames.name(of: type)) attribute no value; ignored, as Core Data ignores it")
    }

    mutating func length(_ s: String, _ what: String, _ at: ModelLocation) -> Int {
        let reading = XcodeValueText.length(s)
        if !reading.exact { warnings.append("\(at.prefix)\(what)=\"\(s)\" is not a length; read as \(reading.value), as Core Data reads it") }
        return reading.value
    }

    mutating func dateValue(_ s: String, _ what: String, _ at: ModelLocation) -> AttributeValue {
        let reading = XcodeValueText.seconds(s) ?? (0, false)
        if !reading.exact { warnings.append("\(at.prefix)\(what)=\"\(s)\" is not a number of seconds; read as \(reading.value), as Core Data reads it") }
        return .date(Date(timeIntervalSinceReferenceDate: reading.value))
    }
}
