#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit
import Logging

typealias DownloadStartedCallback = @GTKActor (UnsafeMutablePointer<WebKitDownload>) -> Void
typealias DecideDestinationCallback = @GTKActor (UnsafeMutablePointer<WebKitDownload>, String?) -> Bool

/// Downloads start on the shared context, not on a view: this routes each one to the view it came from, as an
/// `EngineDownload` for its UI delegate, and cancels it. The engine never writes a download to disk itself;
/// the host fetches it natively if it wants it.
@GTKActor
final class GTKDownloads {
    static let shared = GTKDownloads()

    private struct WeakView { weak var view: GTKWebView? }
    private var views: [UnsafeMutableRawPointer: WeakView] = [:]
    private var connected = false
    private let logger = Logger(label: "hybrid.gtk.downloads")

    func register(_ view: GTKWebView, engineView: UnsafeMutableRawPointer) {
        views = views.filter { $0.value.view != nil }
        views[engineView] = WeakView(view: view)
        connectOnce()
    }

    private func connectOnce() {
        guard !connected else { return }
        connected = true
        let started: @convention(c) (gpointer?, UnsafeMutablePointer<WebKitDownload>?, gpointer?) -> Void = {
            _, download, data in
            guard let download, let handle = SignalBox<DownloadStartedCallback>.from(data) else { return }
            GTKActor.assumeIsolated { handle(download) }
        }
        connectSignal(
            UnsafeMutableRawPointer(GTKWebContext.shared.context), "download-started",
            handler: unsafeBitCast(started, to: GCallback.self), as: DownloadStartedCallback.self,
            callback: { (download: UnsafeMutablePointer<WebKitDownload>) in
                GTKDownloads.shared.started(download)
            })
    }

    private func started(_ download: UnsafeMutablePointer<WebKitDownload>) {
        let uri = webkit_download_get_request(download).flatMap { borrowGString(webkit_uri_request_get_uri($0)) }
        let customScheme = uri.flatMap(URL.init(string:)).flatMap { GTKWebContext.shared.serves($0) ? $0 : nil }
        let reportedAtStart = customScheme != nil
        if let url = customScheme {
            // A custom-scheme link with a `download` attribute: WebKitGTK 2.50's network process cannot load the
            // scheme, so the download fails on its own before asking for a destination, and nothing would say
            // so. Reported now, from its URL; WebKitGTK exposes the attribute's filename only with that question,
            // so the URL's last path component names it. Not cancelled: with a cancel on the next turn, as below,
            // the process crashed (a segfault just after the report) in 3 of 6 runs of its tests, 0 of 13 without.
            let report = EngineDownload(url: url, suggestedFilename: Self.fallbackName(for: url), mimeType: nil)
            reportDownload(report, from: download)
        }
        // The filename is known once the response head is in: WebKit asks for a destination then. Asked for a
        // download already reported (a WebKitGTK that loads custom schemes), it is only cancelled: never written.
        let decide: @convention(c) (gpointer?, UnsafePointer<gchar>?, gpointer?) -> gboolean = { object, name, data in
            guard let object, let handle = SignalBox<DecideDestinationCallback>.from(data) else { return 0 }
            let download = object.assumingMemoryBound(to: WebKitDownload.self)
            let filename = borrowGString(name)
            return GTKActor.assumeIsolated { handle(download, filename) } ? 1 : 0
        }
        connectSignal(
            UnsafeMutableRawPointer(download), "decide-destination", handler: unsafeBitCast(decide, to: GCallback.self),
            as: DecideDestinationCallback.self,
            callback: { (download: UnsafeMutablePointer<WebKitDownload>, filename: String?) -> Bool in
                if reportedAtStart {
                    GTKDownloads.shared.cancelLater(download)
                    return true
                }
                return GTKDownloads.shared.decideDestination(download, suggestedFilename: filename)
            })
    }

    private func decideDestination(_ download: UnsafeMutablePointer<WebKitDownload>, suggestedFilename: String?) -> Bool
    {
        let uri = webkit_download_get_request(download).flatMap { borrowGString(webkit_uri_request_get_uri($0)) }
        let response = webkit_download_get_response(download)
        let responseURI = response.flatMap { borrowGString(webkit_uri_response_get_uri($0)) }
        let mimeType = response.flatMap { borrowGString(webkit_uri_response_get_mime_type($0)) }
        // Blob downloads answer with an empty response URI: the request's is the one that means something.
        let url = [responseURI, uri].compactMap { $0 }.filter { !$0.isEmpty }.lazy.compactMap(URL.init(string:)).first
        if let url {
            let name = suggestedFilename.flatMap { $0.isEmpty ? nil : $0 }
            reportDownload(EngineDownload(url: url, suggestedFilename: name, mimeType: mimeType), from: download)
        } else {
            logger.notice("download without a usable URL cancelled", metadata: ["uri": "\(uri ?? "-")"])
        }
        // Handled without a destination, then cancelled.
        cancelLater(download)
        return true
    }

    private func reportDownload(_ report: EngineDownload, from download: UnsafeMutablePointer<WebKitDownload>) {
        let view = webkit_download_get_web_view(download).flatMap { views[UnsafeMutableRawPointer($0)]?.view }
        if let view { view.reportDownload(report) } else { logger.notice("download without a view dropped") }
    }

    /// Cancels `download` on the next turn: cancelling inside the emission that asks for its destination would
    /// pull the download out from under WebKit.
    private func cancelLater(_ download: UnsafeMutablePointer<WebKitDownload>) {
        g_object_ref(UnsafeMutableRawPointer(download))
        let pointer = UnsafeMutableRawPointer(download)
        Task { @GTKActor in
            let download = pointer.assumingMemoryBound(to: WebKitDownload.self)
            webkit_download_cancel(download)
            g_object_unref(pointer)
        }
    }

    /// A download's name when nothing better names it (`EngineDownload.suggestedFilename`): the URL's last path
    /// component, nil for a bare host.
    static func fallbackName(for url: URL) -> String? {
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? nil : last
    }
}
#endif
