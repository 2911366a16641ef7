/// Structural equality. Constants compare as NSNumber does (1, 1.0 and YES are equal) so
/// that a predicate equals the one its canonical text parses to.
extension ObjectPredicate: Equatable {
    public static func == (a: ObjectPredicate, b: ObjectPredicate) -> Bool {
        switch (a, b) {
        case (.truePredicate, .truePredicate), (.falsePredicate, .falsePredicate): return true
        case (.not(let x), .not(let y)): return x == y
        case (.and(let x), .and(let y)), (.or(let x), .or(let y)): return x == y
        case (.comparison(let x), .comparison(let y)):
            return x.op == y.op && x.quantifier == y.quantifier && x.options == y.options && x.left == y.left && x.right == y.right
        default: return false
        }
    }
}

extension ObjectExpression: Equatable {
    public static func == (a: ObjectExpression, b: ObjectExpression) -> Bool {
        switch (a, b) {
        case (.evaluatedObject, .evaluatedObject): return true
        case (.constant(let x), .constant(let y)): return sameConstant(x, y)
        // A constant collection prints as the aggregate of its members, and a date as a
        // CAST of its seconds: each equals what its text parses to.
        case (.constant(.collection(let items)), .aggregate(let exprs)), (.aggregate(let exprs), .constant(.collection(let items))):
            return items.count == exprs.count && zip(items, exprs).allSatisfy { ObjectExpression.constant($0) == $1 }
        case (.constant(.scalar(.date(let d))), .cast(.constant(.scalar(let n)), "NSDate")),
            (.cast(.constant(.scalar(let n)), "NSDate"), .constant(.scalar(.date(let d)))):
            return ValueComparison.number(n) == d.timeIntervalSinceReferenceDate
        case (.variable(let x), .variable(let y)): return x == y
        case (.keyPath(let xb, let xp), .keyPath(let yb, let yp)): return xb == yb && xp == yp
        case (.index(let xb, let xk), .index(let yb, let yk)): return xb == yb && xk == yk
        case (.aggregate(let x), .aggregate(let y)): return x == y
        case (.function(let xs, let xa), .function(let ys, let ya)): return xs == ys && xa == ya
        case (.method(let xr, let xs, let xa), .method(let yr, let ys, let ya)): return xr == yr && xs == ys && xa == ya
        case (.subquery(let xc, let xv, let xp), .subquery(let yc, let yv, let yp)): return xc == yc && xv == yv && xp == yp
        case (.cast(let xv, let xt), .cast(let yv, let yt)): return xv == yv && xt == yt
        case (.conditional(let xp, let xa, let xb), .conditional(let yp, let ya, let yb)): return xp == yp && xa == ya && xb == yb
        default: return false
        }
    }

    /// Constant equality for predicate identity: numbers by value, strings exactly, and a
    /// constant collection equal to the aggregate it prints as.
    static func sameConstant(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
        ValueComparison.equal(a, b)
    }
}

extension ObjectExpression.IndexKind: Equatable {
    public static func == (a: ObjectExpression.IndexKind, b: ObjectExpression.IndexKind) -> Bool {
        switch (a, b) {
        case (.first, .first), (.last, .last), (.size, .size): return true
        case (.at(let x), .at(let y)): return x == y
        default: return false
        }
    }
}
