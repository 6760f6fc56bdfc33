import Foundation

/// Recognises responses that are downloads rather than pages (decided when the navigation response arrives).
public enum DownloadDetector {
    /// The download a response stands for, or `nil` when it is a page to show: `Content-Disposition: attachment`,
    /// or a type the engine cannot show.
    public static func download(for response: NavigationResponse) -> EngineDownload? {
        let disposition = response.header("Content-Disposition")
        let isAttachment =
            disposition?.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() == "attachment"
        guard isAttachment || !response.canShowMIMEType else { return nil }
        let name =
            response.suggestedFilename ?? disposition.flatMap(filename(fromContentDisposition:))
            ?? (response.url.lastPathComponent.isEmpty || response.url.lastPathComponent == "/"
                ? nil : response.url.lastPathComponent)
        return EngineDownload(url: response.url, suggestedFilename: name, mimeType: response.mimeType)
    }

    /// `filename*=UTF-8''…` (RFC 6266, preferred) or `filename="…"`. Directory parts are dropped: the name is
    /// a suggestion from an untrusted server.
    public static func filename(fromContentDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for part in value.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                let pieces = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, pieces[0].lowercased() == "utf-8" {
                    extended = String(pieces[2]).removingPercentEncoding
                }
            case "filename":
                var text = pair[1]
                if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                    text = String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                plain = text
            default: continue
            }
        }
        guard let name = extended ?? plain else { return nil }
        let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        return base.isEmpty || base == "." || base == ".." ? nil : base
    }
}
