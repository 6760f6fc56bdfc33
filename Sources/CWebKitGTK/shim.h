#ifndef HYBRIDKIT_CWEBKITGTK_SHIM_H
#define HYBRIDKIT_CWEBKITGTK_SHIM_H

// WebKitGTK's C API as Swift sees it. Swift cannot import function-like macros (the GObject casts)
// or variadic functions (g_object_new), so the few the adapter needs are spelled out here.
#include <webkit2/webkit2.h>
#include <cairo.h>
#include <gio/gunixinputstream.h>
// glibc's heap statistics (mallinfo2), for the benchmarks' leak figures: Swift's Glibc module leaves malloc.h out.
#include <malloc.h>

static inline WebKitWebView *hk_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager,
                                            WebKitSettings *settings) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context, "user-content-manager",
                                        manager, "settings", settings, NULL));
}

static inline GtkWidget *hk_widget(void *object) { return GTK_WIDGET(object); }
static inline GtkContainer *hk_container(void *object) { return GTK_CONTAINER(object); }
static inline GtkWindow *hk_window(void *object) { return GTK_WINDOW(object); }
static inline GObject *hk_object(void *object) { return G_OBJECT(object); }

static inline gboolean hk_is_uri_scheme_response_supported(void) { return TRUE; }

#endif
