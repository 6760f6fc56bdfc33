import Crypto
import Foundation

/// A user script the configuration replaces, named as the app registered it. The content travels inline or
/// separately (in a package, say); either way it must hash to `sha256`, so a wrong or altered script never runs.
public struct ReplacementScript: Sendable, Equatable, Codable {
    public enum InjectionTime: String, Sendable, Codable { case documentStart, documentEnd }

    public var name: String
    /// Lower-case hex SHA-256 of the script's UTF-8 bytes.
    public var sha256: String
    public var source: String?
    public var injectionTime: InjectionTime
    public var mainFrameOnly: Bool

    public init(
        name: String, source: String, injectionTime: InjectionTime = .documentEnd, mainFrameOnly: Bool = true
    ) {
        self.name = name
        self.sha256 = Self.hash(Data(source.utf8))
        self.source = source
        self.injectionTime = injectionTime
        self.mainFrameOnly = mainFrameOnly
    }

    enum CodingKeys: String, CodingKey { case name, sha256, source, injectionTime, mainFrameOnly }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        sha256 = try container.decode(String.self, forKey: .sha256).lowercased()
        source = try container.decodeIfPresent(String.self, forKey: .source)
        injectionTime = try container.decodeIfPresent(InjectionTime.self, forKey: .injectionTime) ?? .documentEnd
        mainFrameOnly = try container.decodeIfPresent(Bool.self, forKey: .mainFrameOnly) ?? true
    }

    /// Whether `content` is the script this entry names.
    public func matches(_ content: Data) -> Bool { Self.hash(content) == sha256 }

    func validate() throws(ConfigError) {
        guard !name.isEmpty else { throw .malformed("a replacement script has an empty name") }
        guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else {
            throw .malformed("script '\(name)' has no valid sha256 (64 hex digits)")
        }
        if let source, !matches(Data(source.utf8)) { throw .scriptHashMismatch(name: name) }
    }

    static func hash(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
