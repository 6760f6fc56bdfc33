import HybridPackages
import Testing

/// Runs `body`, expecting a `PackageError` that `matches`; records an issue otherwise.
@discardableResult
func expectPackageError(
    _ matches: (PackageError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> PackageError? {
    do {
        try body()
        Issue.record("expected a PackageError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as PackageError {
        #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
        // Every refusal must explain itself in words.
        #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record(
            "expected a PackageError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
