import HybridKit
import Synchronization

/// The shop's native module: a cart its pages fill with `hybrid.call('cart', 'add', {sku, price})`.
public enum Cart {
    struct Item: Decodable, Sendable { var sku: String, price: Double }
    struct Summary: Encodable, Sendable { var count: Int, total: Double }

    /// Callable from the site's own signed pages only (their origin as the engine reports it, not a URL they claim;
    /// never the live https site).
    public static func module() -> BridgeModule {
        let items = Mutex<[Item]>([])
        return BridgeModule("cart", access: .site) { module in
            module.method("add") { (item: Item, _) throws -> Summary in
                guard !item.sku.isEmpty, item.price >= 0 else { throw BridgeError.badArguments("needs sku, price ≥ 0") }
                return items.withLock { items in
                    items.append(item)
                    return Summary(count: items.count, total: items.reduce(0) { $0 + $1.price })
                }
            }
        }
    }
}
