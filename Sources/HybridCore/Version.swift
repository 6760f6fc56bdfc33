public enum HybridCoreVersion { public static let string = "0.1.0" }
