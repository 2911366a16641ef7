/// Rows in the text format of `COPY … FROM STDIN`: values separated by tabs, rows ended by
/// newlines, NULL as `\N`, and in text a backslash, tab, newline or carriage return
/// written as a backslash escape. Each value is its parameter's text form, which the
/// server parses as the column's type, exactly as it parses the same parameter sent as text.
enum PostgreSQLCopyText {
    /// Appends `rows` rows of `width` parameters each.
    static func append(_ parameters: ArraySlice<PostgreSQLParameter>, width: Int, to out: inout [UInt8]) {
        var column = 0
        for p in parameters {
            if column > 0 { out.append(9) }  // \t
            append(p, to: &out)
            column += 1
            if column == width {
                out.append(10)  // \n
                column = 0
            }
        }
    }

    static func append(_ p: PostgreSQLParameter, to out: inout [UInt8]) {
        if let bits = p.binary {
            if p.type == PostgreSQLParameter.int8 { appendDecimal(Int64(bitPattern: bits), to: &out) } else { out.append(contentsOf: p.textForm!.utf8) }
            return
        }
        guard var text = p.text else {
            out.append(92); out.append(78)  // \N
            return
        }
        text.withUTF8 { bytes in
            for b in bytes {
                switch b {
                case 92: out.append(92); out.append(92)
                case 9: out.append(92); out.append(116)
                case 10: out.append(92); out.append(110)
                case 13: out.append(92); out.append(114)
                default: out.append(b)
                }
            }
        }
    }

    /// The integer in decimal digits, without making a string.
    static func appendDecimal(_ v: Int64, to out: inout [UInt8]) {
        var magnitude = v.magnitude
        if v < 0 { out.append(45) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }
}
