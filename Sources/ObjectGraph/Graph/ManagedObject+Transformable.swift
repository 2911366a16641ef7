/// Transformable attributes: the object holds values, the store bytes. Bytes read from a
/// row are decoded by the attribute's transformer when the value is read; values are
/// turned into bytes when a save writes them, so a value that cannot be written fails
/// the save and writes nothing.
extension ManagedObject {
    /// The value of a transformable slot: stored bytes (`.data`) decoded, values as they are.
    func transformed(_ value: AttributeValue, at slot: Int) throws(ObjectGraphError) -> AttributeValue {
        guard case .data(let bytes) = value, case .attribute(.transformable) = layout.kinds[slot],
            let attribute = layout.properties[slot] as? AttributeDescription
        else { return value }
        let decoded = try ValueTransformers.decode(bytes, for: attribute)
        return decoded == .null ? .null : .transformable(decoded)
    }

    /// Sets a transformable: a value the default transformer refuses fails here (140006),
    /// and an equal value is no change.
    func setTransformable(_ value: AttributeValue, at slot: Int, _ context: ManagedObjectContext) throws(ObjectGraphError) {
        guard let description = layout.properties[slot] as? AttributeDescription else { throw notAnAttribute(slot, key: nil) }
        let stored = try value.coerced(to: .transformable, key: description.name, entity: entity.name)
        if case .transformable(let t) = stored { try ValueTransformers.checkSettable(t, for: description) }
        // A stored value that cannot be read is replaced, not compared.
        if (try? attribute(at: slot, key: description.name, context)) == stored { return }
        if current == nil { try makeWritable(context) }
        context.willChange(self)
        current![slot] = stored
        markChanged(slot)
        context.didChange(self)
    }

    /// The values a save hands the store: transformable values as their transformer's bytes.
    func storedForm(_ values: [AttributeValue]) throws(ObjectGraphError) -> [AttributeValue] {
        let slots = layout.transformableSlots
        if slots.isEmpty { return values }
        var out = values
        for slot in slots {
            guard case .transformable(let t) = values[slot], let attribute = layout.properties[slot] as? AttributeDescription else { continue }
            out[slot] = .data(try ValueTransformers.encode(t, for: attribute))
        }
        return out
    }
}
