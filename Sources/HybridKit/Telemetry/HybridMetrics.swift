/// The metrics HybridKit reports through swift-metrics. Bootstrap `MetricsSystem` in the host app (Prometheus,
/// StatsD, OpenTelemetry…) to collect them; without a bootstrap they cost next to nothing.
///
/// Dimension values are bounded sets chosen by native code (module names the host registered, error codes,
/// fixed outcome words), never strings a page controls: a hostile page must not be able to blow up a metrics
/// backend's cardinality.
public enum HybridMetrics {
    /// Counter. Bridge calls answered; dimensions `module` (`-` when the call named no registered module) and
    /// `outcome` (`ok` or a ``BridgeError/Code`` raw value such as `denied`).
    public static let bridgeCalls = "hybrid_bridge_calls"
    /// Timer. From a call's arrival to its answer; dimension `module`.
    public static let bridgeCallDuration = "hybrid_bridge_call_duration"
    /// Counter. Page messages refused before they reached a module (malformed, unverified frame…);
    /// dimension `code`.
    public static let bridgeRefused = "hybrid_bridge_refused"
    /// Counter. Requests the package scheme handler answered; dimension `outcome`: `hit` (served from a
    /// package), `miss` (fetched from the network: no package has it, or a method other than GET/HEAD),
    /// `degraded` (a package serves it but its prefix is degraded), `refused` (not routed, or escaping the package), `redirected` (a main document moved to its final URL).
    public static let packageRequests = "hybrid_package_requests"
    /// Counter. Requests the native proxy ended (the hooks' full-proxy strategy); dimension `outcome`: `ok`,
    /// `refused` (scheme, host or address not allowed), `too_large`, `body_failed`, `redirect_refused`,
    /// `network_error`, `cancelled`.
    public static let proxyRequests = "hybrid_proxy_requests"
    /// Counter. What the navigation policy did; dimension `outcome`: `external` (handed to the host),
    /// `blocked`, `new_window`, `download`, `dialog`, `dialog_timeout`, `subresource_failed`.
    public static let navigationPolicy = "hybrid_navigation_policy"
    /// Counter. Request bodies in the hooks' body store; dimension `event`: `stored` (an upload began),
    /// `consumed` (re-attached to its request), `refused` (too large, store full, unknown or foreign id, bad chunk).
    public static let bodies = "hybrid_bodies"
    /// Timer. A request body's upload, from its first chunk's arrival to its last (the page → host leg).
    public static let bodyUploadDuration = "hybrid_body_upload_duration"
    /// Counter. White-screen recoveries; dimensions `outcome` (`recovered`, `gave_up`) and `trigger`.
    public static let recoveries = "hybrid_recoveries"
    /// Counter. Cookies copied between the jar and the engine's store; dimension `direction` (`to_engine`,
    /// `from_engine`, `deleted_from_engine`).
    public static let cookieSync = "hybrid_cookie_sync"
    /// Counter. Package versions rolled back by boot safety (``BootSafety``); dimension `reason` (`notConfirmed`,
    /// `webProcessTerminated`, `blankPage`, `interruptedOpen`).
    public static let bootRollbacks = "hybrid_boot_rollbacks"
    /// Counter. First-screen prefetches (``FirstScreenPrefetcher``); dimension `outcome`: `started`, `hit` (a
    /// page's request answered from one), `miss` (a page's request none answered), `waste` (dropped unclaimed:
    /// expired, too large, cookies changed, page closed), `fallback` (claimed, then failed or too slow before its
    /// head: the page fetched itself), `refused` (a declaration or filled-in request refused), `denied` (a message
    /// to network pages' prefetch handler refused: another frame or origin sent it, or it was forged or malformed).
    public static let prefetches = "hybrid_prefetches"
    /// Timer. For each hit, how long the prefetch had been under way when the page asked: the time it saved.
    public static let prefetchSaved = "hybrid_prefetch_saved"
    /// Counter. Network pages' main documents fetched natively (``NetworkPagePrefetcher``); dimension `outcome`:
    /// `started`, `shown` (handed to the engine), `fallback` (the engine loaded the page itself; the log says why),
    /// `waste` (fetched on a tap and never opened, expired or evicted), `process_started` (a cold view's web
    /// process started while its document was fetched).
    public static let networkPages = "hybrid_network_pages"
    /// Counter. The HTTP cache of natively fetched responses (``HTTPResponseCache``); dimension `outcome`: `hit`
    /// (answered fresh from the cache), `revalidated` (a 304 refreshed a stored response), `miss` (sent to the
    /// network), `stored`.
    public static let httpCache = "hybrid_http_cache"
}
