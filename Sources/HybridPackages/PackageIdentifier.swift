/// Rules for package identifiers, which double as directory names in the store.
public enum PackageIdentifier {
    /// Letters, digits, '.', '-' and '_', at most 128 characters, not starting with '.'.
    public static func isValid(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, !id.hasPrefix(".") else { return false }
        return id.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "."
                    || scalar == "-"
                    || scalar == "_")
        }
    }
}
