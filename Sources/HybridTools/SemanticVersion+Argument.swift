import ArgumentParser
import HybridPackages

// Lets options be typed `SemanticVersion`, so a bad version is an argument error before any work starts.
extension SemanticVersion: ExpressibleByArgument {}
