#if canImport(WebKit)
#endif
