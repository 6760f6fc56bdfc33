#ifndef HYBRID_WEB_EXTENSION_H
#define HYBRID_WEB_EXTENSION_H
// The web-process extension is loaded by WebKit with dlopen; it has no API for the host process.
// Message names shared with the UI-process side (HybridKitGTK/WebView/GTKFrameMessage.swift).
#define HYBRID_FRAME_POST_MESSAGE "hybrid.frame-post"
#endif
