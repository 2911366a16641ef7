import FoundationEssentials

/// Archives an expression as the NSExpression objects Xcode keeps in an
/// `.xcmappingmodel` (`valueexpressiondata`, `sourceexpressiondata`), for the forms whose
/// archived shape is known: constants, `SELF`, variables, key paths,
/// `FUNCTION(receiver, "selector", …)` and `FETCH(…)`. Other forms give nil, and the
/// writer keeps their text instead.
enum ArchivedExpressionWriter {
    typealias Object = BinaryPropertyList.Object

    /// The archive of the expression `text` denotes, or nil when it does not parse or has
    /// a form this writer cannot archive.
    static func archive(_ text: String) -> [UInt8]? {
        guard let e = try? ObjectExpression(format: text) else { return nil }
        var w = MappingArchiveBuilder()
        guard let root = object(e, &w, depth: 0) else { return nil }
        return w.archive(root: root)
    }

    private static let expression = "NSExpression"

    private static func object(_ e: ObjectExpression, _ w: inout MappingArchiveBuilder, depth: Int) -> Object? {
        guard depth < MappingLimits.maximumExpressionDepth else { return nil }
        switch e {
        case .evaluatedObject:
            return w.add(["NSSelfExpression", expression, "NSObject"], ["NSExpressionType": .int(1)])
        case .variable(let name):
            return w.add(["NSVariableExpression", expression, "NSObject"], ["NSExpressionType": .int(2), "NSVariable": w.add(string: name)])
        case .constant(let v):
            var fields: [String: Object] = ["NSExpressionType": .int(0)]
            switch v {
            case .scalar(.null): break
            case .scalar(.string(let s)): fields["NSConstantValue"] = w.add(string: s)
            case .scalar(.integer(let i)): fields["NSConstantValue"] = .int(i)
            case .scalar(.double(let d)): fields["NSConstantValue"] = .real(d)
            case .scalar(.boolean(let b)): fields["NSConstantValue"] = .bool(b)
            default: return nil
            }
            return w.add(["NSConstantValueExpression", expression, "NSObject"], fields)
        case .keyPath(let base, let path):
            // Foundation archives `base.path` as valueForKeyPath: sent to the base.
            let operand = base.map { object($0, &w, depth: depth + 1) } ?? object(.evaluatedObject, &w, depth: depth + 1)
            guard let operand else { return nil }
            let specifier = w.add(["NSKeyPathSpecifierExpression", expression, "NSObject"], ["NSExpressionType": .int(10), "NSKeyPath": w.add(string: path)])
            let arguments = w.add(array: [specifier])
            return w.add(["NSKeyPathExpression", "NSFunctionExpression", expression, "NSObject"], [
                "NSExpressionType": .int(4), "NSOperand": operand, "NSSelectorName": w.add(string: "valueForKeyPath:"), "NSArguments": arguments,
            ])
        case .method(let receiver, let selector, let args):
            guard let operand = object(receiver, &w, depth: depth + 1) else { return nil }
            var refs: [Object] = []
            for a in args {
                guard let r = object(a, &w, depth: depth + 1) else { return nil }
                refs.append(r)
            }
            let arguments = w.add(array: refs)
            return w.add(["NSFunctionExpression", expression, "NSObject"], [
                "NSExpressionType": .int(4), "NSOperand": operand, "NSSelectorName": w.add(string: selector), "NSArguments": arguments,
            ])
        case .function("FETCH", let args) where args.count == 3:
            guard case .constant(.scalar(.boolean(let countOnly))) = args[2],
                let request = object(args[0], &w, depth: depth + 1), let context = object(args[1], &w, depth: depth + 1)
            else { return nil }
            return w.add(["NSFetchRequestExpression", expression, "NSObject"], [
                "NSExpressionType": .int(50), "NSFRExpression": request, "NSMOCExpression": context, "NSCountOnlyFlag": .bool(countOnly),
            ])
        default:
            // Built-in functions, aggregates, subqueries, casts, indexes and TERNARY: their
            // archived form is not one this library has verified.
            return nil
        }
    }
}
