import Foundation

/// How `hybrid run` serves and shows the app (from its command-line options).
struct RunOptions {
    /// The URL prefix a directory is served as, as a release's manifest would say.
    var serves: String
    var entry: String
    var publicKey: String?
    /// Where package misses go instead of the route's origin (a dev or staging server).
    var origin: String?
    var screenshot: String?
    var timeout: Int
    /// Seconds the page gets after its load before the screenshot (its scripts, fonts, images).
    var settle: Double
    var exitAfter: Double?
    /// How often the directory is checked for changes.
    var pollInterval: Duration = .milliseconds(250)
    /// How long a change must stay still before the page reloads: an editor's save is often several writes.
    var debounce: Duration = .milliseconds(200)
}
