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
//
// `__hybridFrameSync(text)` is the synchronous counterpart: it calls `prompt()` from the private world (so a
// page that replaced `window.prompt` never sees the text) with the text prefixed by a secret the UI process
// handed this process at start, and the frame's origin, main-frame flag and URI. The UI process reads a prompt
// that starts with the secret as a bridge call from that frame; page scripts cannot write that prefix.
#include <webkit2/webkit-web-extension.h>
#include "hybrid_web_extension.h"
#include <string.h>

typedef struct {
    WebKitWebExtension *extension;
    guint64 page_id;
    gchar *uri;
    gchar *origin;
    gboolean is_main_frame;
    // The frame's `prompt`, taken from the private world; NULL when the process got no secret.
    JSCValue *prompt;
} FrameStamp;

// Given by the UI process (initialization user data); NULL when it gave none, and then there is no
// `__hybridFrameSync`.
static gchar *prompt_secret;

// Page scripts never run in this world, so its globals are the engine's own.
static WebKitScriptWorld *origin_world;

typedef struct {
    JSCValue *callback;
} PendingReply;

static void frame_stamp_free(gpointer data) {
    FrameStamp *stamp = data;
    g_free(stamp->uri);
    g_free(stamp->origin);
    if (stamp->prompt) g_object_unref(stamp->prompt);
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
    // The text is taken as it is, not copied and checked again: JavaScriptCore writes valid UTF-8 (a lone surrogate
    // becomes U+FFFD), and a megabyte post would otherwise be copied and validated once more here.
    GVariant *children[5] = {
        g_variant_new_string(name_string),
        g_variant_new_from_data(G_VARIANT_TYPE_STRING, text_string, strlen(text_string) + 1, TRUE, g_free, text_string),
        g_variant_new_string(stamp->uri ? stamp->uri : ""),
        g_variant_new_string(stamp->origin),
        g_variant_new_boolean(stamp->is_main_frame),
    };
    WebKitUserMessage *message = webkit_user_message_new(HYBRID_FRAME_POST_MESSAGE, g_variant_new_tuple(children, 5));
    g_free(name_string);
    JSCValue *callback = arguments->len > 2 ? g_ptr_array_index(arguments, 2) : NULL;
    if (callback && jsc_value_is_function(callback)) {
        PendingReply *pending = g_new0(PendingReply, 1);
        pending->callback = g_object_ref(callback);
        webkit_web_page_send_message_to_view(page, message, NULL, on_reply, pending);
    } else {
        webkit_web_page_send_message_to_view(page, message, NULL, NULL, NULL);
    }
}

// Blocks the calling frame in a prompt() the UI process answers; returns its text, or NULL (JavaScript null)
// when it was cancelled or the arguments are wrong.
static gchar *frame_sync(GPtrArray *arguments, gpointer user_data) {
    FrameStamp *stamp = user_data;
    if (!stamp->prompt || !prompt_secret || arguments->len < 1) return NULL;
    JSCValue *text = g_ptr_array_index(arguments, 0);
    if (!jsc_value_is_string(text)) return NULL;
    gchar *body = jsc_value_to_string(text);
    gchar *stamped = g_strdup_printf("%s\n%s\n%d\n%s\n%s", prompt_secret, stamp->origin, stamp->is_main_frame ? 1 : 0,
                                     stamp->uri ? stamp->uri : "", body);
    g_free(body);
    JSCValue *answer = jsc_value_function_call(stamp->prompt, G_TYPE_STRING, stamped, G_TYPE_STRING, "", G_TYPE_NONE);
    g_free(stamped);
    gchar *result = NULL;
    if (answer && jsc_value_is_string(answer)) result = jsc_value_to_string(answer);
    if (answer) g_object_unref(answer);
    JSCContext *context = jsc_value_get_context(stamp->prompt);
    if (context && jsc_context_get_exception(context)) jsc_context_clear_exception(context);
    return result;
}

// The frame's own prompt function as the private world sees it (page scripts cannot replace it there).
static JSCValue *private_prompt_of(WebKitFrame *frame) {
    JSCContext *context = webkit_frame_get_js_context_for_script_world(frame, origin_world);
    if (!context) return NULL;
    JSCValue *value = jsc_context_evaluate(context, "prompt", -1);
    if (jsc_context_get_exception(context)) jsc_context_clear_exception(context);
    g_object_unref(context);
    if (value && !jsc_value_is_function(value)) {
        g_object_unref(value);
        return NULL;
    }
    return value;
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
    if (prompt_secret) {
        FrameStamp *sync_stamp = g_new0(FrameStamp, 1);
        sync_stamp->extension = user_data;
        sync_stamp->page_id = stamp->page_id;
        sync_stamp->uri = g_strdup(stamp->uri);
        sync_stamp->origin = g_strdup(stamp->origin);
        sync_stamp->is_main_frame = stamp->is_main_frame;
        sync_stamp->prompt = private_prompt_of(frame);
        JSCValue *sync = jsc_value_new_function_variadic(
            context, "__hybridFrameSync", G_CALLBACK(frame_sync), sync_stamp, frame_stamp_free, G_TYPE_STRING);
        jsc_context_set_value(context, "__hybridFrameSync", sync);
        g_object_unref(sync);
    }
    g_object_unref(context);
}

G_MODULE_EXPORT void webkit_web_extension_initialize_with_user_data(WebKitWebExtension *extension, GVariant *user_data) {
    origin_world = webkit_script_world_new();
    if (user_data && g_variant_is_of_type(user_data, G_VARIANT_TYPE_STRING)) {
        const char *secret = g_variant_get_string(user_data, NULL);
        // A short secret could be guessed by a page; the UI process sends 32 random hex digits.
        if (secret && strlen(secret) >= 32) prompt_secret = g_strdup(secret);
    }
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared", G_CALLBACK(on_window_object_cleared),
                     extension);
}
