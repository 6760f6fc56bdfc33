// A WebKitGTK app imports this module alone: the engine-free API comes with the adapter.
@_exported import HybridKit
