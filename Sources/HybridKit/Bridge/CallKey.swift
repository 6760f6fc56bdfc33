/// A page's call (or stream) as the page names it: its document's token and the call id, unique per document.
struct CallKey: Hashable, Sendable {
    let token: String
    let id: Int
}
