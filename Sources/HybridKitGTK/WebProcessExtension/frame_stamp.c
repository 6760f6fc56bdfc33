// HybridKit's WebKitGTK web-process extension: it gives each frame a way to post to the UI process that
// the frame cannot lie through.
//
// WebKitGTK's script messages do not say which frame sent them, and any frame can post to any handler, so
// a hostile iframe could pose as the main document. Here, in every frame's page world, the extension
// defines `__hybridFramePost(name, text, callback?)`. The function carries the URI, the security origin and
// the main-frame flag of the document it was created for, and forwards (name, text, uri, origin, is_main) to
// the UI process as a WebKitUserMessage. With a callback, the UI process's reply (a string) is handed to it —
// the reply channel subframes need.
//
// The origin is the one the engine enforces, not one derived from the URI: a sandboxed iframe, a `data:`
// frame or a document served with a CSP sandbox has an opaque origin ("null") whatever its URI says, and an
// `about:blank` or `srcdoc` frame has its creator's. It is read from a private script world, where page
// scripts cannot redefine `origin`, once per document (when its window object is created), so a function
// kept past a navigation still speaks for the document it was made for.
#include <webkit2/webkit-web-extension.h>
#include "hybrid_web_extension.h"

typedef struct {
    WebKitWebExtension *extension;
    guint64 page_id;
    gchar *uri;
    gchar *origin;
    gboolean is_main_frame;
} FrameStamp;

// Page scripts never run in this world, so its globals are the engine's own.
static WebKitScriptWorld *origin_world;

typedef struct {
    JSCValue *callback;
} PendingReply;

static void frame_stamp_free(gpointer data) {
    FrameStamp *stamp = data;
    g_free(stamp->uri);
    g_free(stamp->origin);
    g_free(stamp);
}

static void on_reply(GObject *source, GAsyncResult *result, gpointer user_data) {
    PendingReply *pending = user_data;
    WebKitUserMessage *reply = webkit_web_page_send_message_to_view_finish(WEBKIT_WEB_PAGE(source), result, NULL);
    const char *text = NULL;
    if (reply) {
        GVariant *parameters = webkit_user_message_get_parameters(reply);
        if (parameters && g_variant_is_of_type(parameters, G_VARIANT_TYPE_STRING)) text = g_variant_get_string(parameters, NULL);
    }
    if (text && jsc_value_is_function(pending->callback)) {
        JSCValue *ignored = jsc_value_function_call(pending->callback, G_TYPE_STRING, text, G_TYPE_NONE);
        if (ignored) g_object_unref(ignored);
    }
    if (reply) g_object_unref(reply);
    g_object_unref(pending->callback);
    g_free(pending);
}

static void frame_post(GPtrArray *arguments, gpointer user_data) {
    FrameStamp *stamp = user_data;
    if (arguments->len < 2) return;
    JSCValue *name = g_ptr_array_index(arguments, 0);
    JSCValue *text = g_ptr_array_index(arguments, 1);
    if (!jsc_value_is_string(name) || !jsc_value_is_string(text)) return;
    WebKitWebPage *page = webkit_web_extension_get_page(stamp->extension, stamp->page_id);
    if (!page) return;
    gchar *name_string = jsc_value_to_string(name);
    gchar *text_string = jsc_value_to_string(text);
    WebKitUserMessage *message = webkit_user_message_new(
        HYBRID_FRAME_POST_MESSAGE,
        g_variant_new("(ssssb)", name_string, text_string, stamp->uri ? stamp->uri : "", stamp->origin,
                      stamp->is_main_frame));
    g_free(name_string);
    g_free(text_string);
    JSCValue *callback = arguments->len > 2 ? g_ptr_array_index(arguments, 2) : NULL;
    if (callback && jsc_value_is_function(callback)) {
        PendingReply *pending = g_new0(PendingReply, 1);
        pending->callback = g_object_ref(callback);
        webkit_web_page_send_message_to_view(page, message, NULL, on_reply, pending);
    } else {
        webkit_web_page_send_message_to_view(page, message, NULL, NULL, NULL);
    }
}

// The serialized security origin of the frame's current document ("null" when opaque). Anything unexpected
// reads as "null", which no module's origin list matches: failing closed.
static gchar *security_origin_of(WebKitFrame *frame) {
    JSCContext *context = webkit_frame_get_js_context_for_script_world(frame, origin_world);
    if (!context) return g_strdup("null");
    JSCValue *value = jsc_context_evaluate(context, "self.origin", -1);
    gchar *origin = NULL;
    if (value && jsc_value_is_string(value)) origin = jsc_value_to_string(value);
    if (value) g_object_unref(value);
    JSCException *exception = jsc_context_get_exception(context);
    if (exception) jsc_context_clear_exception(context);
    g_object_unref(context);
    if (!origin || !*origin) {
        g_free(origin);
        return g_strdup("null");
    }
    return origin;
}

static void on_window_object_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame, gpointer user_data) {
    JSCContext *context = webkit_frame_get_js_context_for_script_world(frame, world);
    FrameStamp *stamp = g_new0(FrameStamp, 1);
    stamp->extension = user_data;
    stamp->page_id = webkit_web_page_get_id(page);
    stamp->uri = g_strdup(webkit_frame_get_uri(frame));
    stamp->origin = security_origin_of(frame);
    stamp->is_main_frame = webkit_frame_is_main_frame(frame);
    JSCValue *function = jsc_value_new_function_variadic(
        context, "__hybridFramePost", G_CALLBACK(frame_post), stamp, frame_stamp_free, G_TYPE_NONE);
    jsc_context_set_value(context, "__hybridFramePost", function);
    g_object_unref(function);
    g_object_unref(context);
}

G_MODULE_EXPORT void webkit_web_extension_initialize(WebKitWebExtension *extension) {
    origin_world = webkit_script_world_new();
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared", G_CALLBACK(on_window_object_cleared),
                     extension);
}
