#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

/// The port's cookie store over `WebKitCookieManager` (libsoup cookies).
@GTKActor
final class GTKCookieStore: EngineCookieStore {
    private let manager: UnsafeMutablePointer<WebKitCookieManager>

    init(manager: UnsafeMutablePointer<WebKitCookieManager>) {
        self.manager = manager
        g_object_ref(manager)
    }

    isolated deinit { g_object_unref(manager) }

    func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie] {
        try await fetch(url)
    }

    private func fetch(_ url: URL?) async throws(EngineError) -> [EngineCookie] {
        let manager = manager
        return try await gioAsync(
            start: { callback, data in
                if let url {
                    webkit_cookie_manager_get_cookies(manager, url.absoluteString, nil, callback, data)
                } else {
                    webkit_cookie_manager_get_all_cookies(manager, nil, callback, data)
                }
            },
            finish: { _, result in
                var error: UnsafeMutablePointer<GError>?
                let list =
                    url == nil
                    ? webkit_cookie_manager_get_all_cookies_finish(manager, result, &error)
                    : webkit_cookie_manager_get_cookies_finish(manager, result, &error)
                if let error { return .failure(.engine("cookies: \(takeGError(error))")) }
                var cookies: [EngineCookie] = []
                var node = list
                while let current = node {
                    if let cookie = current.pointee.data.map(OpaquePointer.init) {
                        cookies.append(GTKCookieStore.engineCookie(cookie))
                    }
                    node = current.pointee.next
                }
                g_list_free_full(list) { soup_cookie_free($0.map(OpaquePointer.init)) }
                return .success(cookies)
            })
    }

    func setCookie(_ cookie: EngineCookie) async throws(EngineError) {
        try await change(cookie, add: true)
    }

    func deleteCookie(_ cookie: EngineCookie) async throws(EngineError) {
        try await change(cookie, add: false)
    }

    private func change(_ cookie: EngineCookie, add: Bool) async throws(EngineError) {
        let manager = manager
        let soupCookie = GTKCookieStore.soupCookie(cookie)
        defer { soup_cookie_free(soupCookie) }
        let _: Bool = try await gioAsync(
            start: { callback, data in
                if add {
                    webkit_cookie_manager_add_cookie(manager, soupCookie, nil, callback, data)
                } else {
                    webkit_cookie_manager_delete_cookie(manager, soupCookie, nil, callback, data)
                }
            },
            finish: { _, result in
                var error: UnsafeMutablePointer<GError>?
                let ok =
                    add
                    ? webkit_cookie_manager_add_cookie_finish(manager, result, &error)
                    : webkit_cookie_manager_delete_cookie_finish(manager, result, &error)
                return ok != 0 ? .success(true) : .failure(.engine("cookie change: \(takeGError(error))"))
            })
    }

    func observeChanges(_ observer: @escaping @Sendable () -> Void) {
        let changed: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
            SignalBox<@Sendable () -> Void>.from(data)?()
        }
        connectSignal(
            UnsafeMutableRawPointer(manager), "changed", handler: unsafeBitCast(changed, to: GCallback.self),
            as: (@Sendable () -> Void).self,
            callback: observer)
    }

    private static func engineCookie(_ cookie: OpaquePointer) -> EngineCookie {
        let expires = soup_cookie_get_expires(cookie).map {
            Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix($0)))
        }
        let sameSite: EngineCookie.SameSite? =
            switch soup_cookie_get_same_site_policy(cookie) {
            case SOUP_SAME_SITE_POLICY_STRICT: .strict
            case SOUP_SAME_SITE_POLICY_LAX: .lax
            case SOUP_SAME_SITE_POLICY_NONE: EngineCookie.SameSite.none
            default: nil
            }
        return EngineCookie(
            name: borrowGString(soup_cookie_get_name(cookie)) ?? "",
            value: borrowGString(soup_cookie_get_value(cookie)) ?? "",
            domain: borrowGString(soup_cookie_get_domain(cookie)) ?? "",
            path: borrowGString(soup_cookie_get_path(cookie)) ?? "/",
            expires: expires,
            isSecure: soup_cookie_get_secure(cookie) != 0,
            isHTTPOnly: soup_cookie_get_http_only(cookie) != 0,
            sameSite: sameSite)
    }

    private static func soupCookie(_ cookie: EngineCookie) -> OpaquePointer? {
        // soup_cookie_new only returns NULL on allocation failure, which GLib already treats as fatal.
        let soup = soup_cookie_new(cookie.name, cookie.value, cookie.domain, cookie.path, -1)
        if let expires = cookie.expires {
            let date = g_date_time_new_from_unix_utc(gint64(expires.timeIntervalSince1970))
            soup_cookie_set_expires(soup, date)
            g_date_time_unref(date)
        }
        soup_cookie_set_secure(soup, cookie.isSecure ? 1 : 0)
        soup_cookie_set_http_only(soup, cookie.isHTTPOnly ? 1 : 0)
        switch cookie.sameSite {
        case .some(.strict): soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_STRICT)
        case .some(.lax): soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_LAX)
        case .some(.none): soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_NONE)
        case nil: break
        }
        return soup
    }
}
#endif
