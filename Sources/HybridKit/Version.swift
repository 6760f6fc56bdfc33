public enum HybridKitVersion { public static let string = "0.1.0" }
