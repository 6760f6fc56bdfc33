// An app imports HybridKit and its engine module, nothing more: the package and cookie types that the
// container's features take (installer, store, keys, jar) come with it.
@_exported import HybridCookies
@_exported import HybridPackages
