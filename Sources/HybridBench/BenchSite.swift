#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

/// The deterministic files `hybrid bench packages` serves and installs, written into a temporary directory.
enum BenchSite {
    /// A 1×1 PNG; the rest of each image is padding after `IEND`, which decoders stop before, so `onload`
    /// still fires while the transfer is the full 10 KB.
    static let png =
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
        ?? Data()

    struct Page {
        /// Paths of the sub-resources, relative to the page.
        let resources: [String]
        let totalBytes: Int
    }

    /// Writes `index.html` and its sub-resources into `directory`: `scripts` scripts and `styles` style sheets
    /// of `textBytes` each, and `images` PNGs of `imageBytes` each.
    ///
    /// The page appends every tag itself, adding its own query string to each URL. Both servers ignore the
    /// query, so loading `index.html?<unique>` makes every URL new to the engine's caches: each load is cold.
    static func writePage(
        to directory: URL, scripts: Int, styles: Int, images: Int, textBytes: Int, imageBytes: Int
    ) throws -> Page {
        let manager = FileManager.default
        for folder in ["js", "css", "img"] {
            try manager.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var resources: [String] = []
        var total = 0
        func add(_ path: String, _ body: Data) throws {
            try body.write(to: directory.appendingPathComponent(path))
            resources.append(path)
            total += body.count
        }
        for index in 0..<scripts {
            try add(
                "js/s\(index).js",
                padded("window.__flags = window.__flags || {}; window.__flags[\(index)] = true;\n", textBytes))
        }
        for index in 0..<styles {
            try add("css/s\(index).css", padded(".r\(index) { margin: \(index % 7)px; }\n", textBytes))
        }
        for index in 0..<images {
            try add("img/i\(index).png", png + noise(count: max(0, imageBytes - png.count), seed: UInt64(index + 1)))
        }
        try Data(indexHTML(resources).utf8).write(to: directory.appendingPathComponent("index.html"))
        return Page(resources: resources, totalBytes: total)
    }

    /// Writes `count` files of `size` bytes in folders of 100: the payload of the install benchmark.
    static func writeFiles(to directory: URL, count: Int, size: Int) throws {
        let manager = FileManager.default
        for index in 0..<count {
            let folder = directory.appendingPathComponent("d\(index / 100)")
            if index % 100 == 0 { try manager.createDirectory(at: folder, withIntermediateDirectories: true) }
            // Half text (compresses like real assets), half noise (like images): the zip is neither trivial
            // nor already-compressed data only.
            var body = Data(String(repeating: "asset \(index) ", count: size / 2 / 12 + 1).utf8.prefix(size / 2))
            body.append(noise(count: size - body.count, seed: UInt64(index + 7)))
            try body.write(to: folder.appendingPathComponent("f\(index).bin"))
        }
        try Data("<!doctype html><title>install bench</title>".utf8).write(
            to: directory.appendingPathComponent("index.html"))
    }

    private static func indexHTML(_ resources: [String]) -> String {
        let list = resources.map { "\"\($0)\"" }.joined(separator: ",")
        return """
            <!doctype html><html><head><title>packages bench</title></head><body>
            <script>
            (function () {
              const query = location.search;
              const resources = [\(list)];
              let loaded = 0;
              let failed = false;
              function post(text) { window.webkit.messageHandlers.benchPage.postMessage(text); }
              function hit() { if (++loaded === resources.length && !failed) post('ok'); }
              function miss(url) { if (!failed) { failed = true; post('failed: ' + url); } }
              for (const path of resources) {
                const url = path + query;
                let element;
                if (path.endsWith('.js')) {
                  element = document.createElement('script');
                  element.src = url;
                } else if (path.endsWith('.css')) {
                  element = document.createElement('link');
                  element.rel = 'stylesheet';
                  element.href = url;
                } else {
                  element = document.createElement('img');
                  element.src = url;
                }
                element.onload = hit;
                element.onerror = () => miss(url);
                (element.tagName === 'IMG' ? document.body : document.head).appendChild(element);
              }
            })();
            </script></body></html>
            """
    }

    /// `prefix` followed by a comment that brings it to `size` bytes.
    private static func padded(_ prefix: String, _ size: Int) -> Data {
        var text = prefix + "/* "
        let filler = "lorem ipsum dolor sit amet "
        while text.utf8.count < size - 3 { text += filler }
        return Data(text.utf8.prefix(size - 3)) + Data(" */".utf8)
    }

    /// Deterministic bytes (xorshift64) that do not compress.
    private static func noise(count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}
#endif
